# fish function shared by hetsched's completions (completions/fish/*.fish call it)
function __hetsched_catalog --description 'The --catalog named on the command line so far'
    set -l c default; set -l w (commandline -opc)
    for i in (seq (count $w))
        switch $w[$i]
            case --catalog; set -q w[(math $i + 1)]; and set c $w[(math $i + 1)]
            case '--catalog=*'; set c (string replace -- --catalog= '' $w[$i])
        end
    end
    echo $c
end
