# bash completion for fabtop(1): the commands, their options and the values
# fabtop itself can list (the bundled scenarios, the learn exercises).
# Installed as PREFIX/share/bash-completion/completions/fabtop.

_fabtop_scenarios()
{
	# `fabtop demo` prints "  NAME  description" lines under a heading.
	"$1" demo 2>/dev/null | awk '/^  [^ ]/ { print $1 }'
}

_fabtop_exercises()
{
	# `fabtop learn --list`: "N  ID  layer  scenario  title" lines.
	"$1" learn --list 2>/dev/null | awk '$1 ~ /^[0-9]+$/ { print $2 }'
}

_fabtop()
{
	local cur prev cmd i prog=${COMP_WORDS[0]}
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	local global="--root --json --lang -M --no-mouse --exclude-dev --ras --window --help --version"

	case $prev in
	--root|-o|--output)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	--lang)
		COMPREPLY=($(compgen -W "zh_CN C" -- "$cur"))
		return ;;
	--steps)
		COMPREPLY=($(compgen -W "job l1 l2 l3 ab job,l1 job,l1,l2 job,l1,l2,l3,ab" -- "$cur"))
		return ;;
	--side)
		COMPREPLY=($(compgen -W "server client" -- "$cur"))
		return ;;
	--interval|--count|--samples|--window|--ras|--peer|--iface|--hca|--pid|--gid-index|--hang|--run-timeout|--exclude-dev)
		return ;;
	esac

	# The command: the first word that is not an option or an option's value.
	cmd=""
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--root|--lang|--ras|--window|--exclude-dev|-o|--output|--interval|--count|--samples) ((i++)) ;;
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done

	case $cmd in
	"")
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$global" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "report capture wizard analyze-log diff fleet demo learn" -- "$cur"))
		fi ;;
	report)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--json --interval --count --ras --window --verbose -o $global" -- "$cur"))
		elif [[ $prev == report ]]; then
			COMPREPLY=($(compgen -W "topo links counters job metrics all" -- "$cur"))
		fi ;;
	capture)
		COMPREPLY=($(compgen -W "-o --force --samples --interval --ras --window --exclude-dev" -- "$cur")) ;;
	wizard)
		COMPREPLY=($(compgen -W "--batch --steps --peer --iface --hca --pid --json --verbose --side --gid-index --hang --run-timeout --probe-timeout --root --help" -- "$cur")) ;;
	analyze-log)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--json --root --help" -- "$cur"))
		else
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -f -- "$cur"))
		fi ;;
	diff|fleet)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--json --all --golden --batch --exclude-dev --help" -- "$cur"))
		else
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -f -- "$cur"))
		fi ;;
	demo)
		[[ $prev == demo ]] && COMPREPLY=($(compgen -W "$(_fabtop_scenarios "$prog")" -- "$cur")) ;;
	learn)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--list --help" -- "$cur"))
		elif [[ $prev == learn ]]; then
			COMPREPLY=($(compgen -W "$(_fabtop_exercises "$prog")" -- "$cur"))
		fi ;;
	esac
}
complete -F _fabtop fabtop
