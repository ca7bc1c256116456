# fish function shared by hetsched's completions (completions/fish/*.fish call it)
function __hetsched_list --description 'Each WORD after the entries of the comma list typed so far'
    set -l head (commandline -ct | string replace -r -- '^--[^=]*=' '' | string match -r -- '^.*,')
    for w in $argv; echo "$head$w"; end  # "$head": one word, empty when no comma yet
end
