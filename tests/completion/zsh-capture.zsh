# zsh -f zsh-capture.zsh COMPDIR OUT LINE...: types each LINE and a TAB into an interactive zsh (a zpty)
# with COMPDIR's completions, and appends to OUT a line "=== LINE" followed by the candidates the
# completion added for it (compadd, wrapped), one a line. Exits 1 if the shell stops answering.
zmodload zsh/zpty || exit 1
dir=$1 out=$2; shift 2
zpty z zsh -f -i
# READY and DONE are written split, so that the echo of the typed command does not match.
zpty -w z "PS1='> '; fpath=($dir \$fpath); autoload -Uz compinit; compinit -u -D; bindkey '^I' complete-word; echo RE''ADY"
zpty -r z _ '*READY*' || exit 1
# Every compadd that adds candidates also writes them out; one that only computes them (-O, -A, -D) does not.
zpty -w z "compadd () { if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\\ * ]]; then builtin compadd \"\$@\"; return; fi;" \
  "local -a h; builtin compadd -A h \"\$@\"; (( \$#h )) && print -rl -- \$h >>${(q)out}; builtin compadd \"\$@\"; }; echo DO''NE"
zpty -r z _ '*DONE*' || exit 1
# TAB completes, then says so: keys typed ahead of a completion would change what it does.
zpty -w z "tab-then-say() { zle complete-word; print -n 'COMP''LETED' >/dev/tty; }; zle -N tab-then-say;" \
  "bindkey '^I' tab-then-say; echo DO''NE"
zpty -r z _ '*DONE*' || exit 1
for line in "$@"; do
  print -r -- "=== $line" >>$out
  zpty -n -w z "$line"$'\t'
  zpty -r z _ '*COMPLETED*' || exit 1
  zpty -n -w z $'\C-u'  # clears the line
done
zpty -d z
