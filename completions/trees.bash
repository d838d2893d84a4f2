#!/bin/bash

__trees_cursor_index_in_current_word() {
    local remaining="${COMP_LINE}"

    local word
    for word in "${COMP_WORDS[@]::COMP_CWORD}"; do
        remaining="${remaining##*([[:space:]])"${word}"*([[:space:]])}"
    done

    local -ir index="$((COMP_POINT - ${#COMP_LINE} + ${#remaining}))"
    if [[ "${index}" -le 0 ]]; then
        printf 0
    else
        printf %s "${index}"
    fi
}

# positional arguments:
#
# - 1: the current (sub)command's count of positional arguments
#
# required variables:
#
# - repeating_flags: the repeating flags that the current (sub)command can accept
# - non_repeating_flags: the non-repeating flags that the current (sub)command can accept
# - repeating_options: the repeating options that the current (sub)command can accept
# - non_repeating_options: the non-repeating options that the current (sub)command can accept
# - positional_number: value ignored
# - unparsed_words: unparsed words from the current command line
#
# modified variables:
#
# - non_repeating_flags: remove flags for this (sub)command that are already on the command line
# - non_repeating_options: remove options for this (sub)command that are already on the command line
# - positional_number: set to the current positional number
# - unparsed_words: remove all flags, options, and option values for this (sub)command
__trees_offer_flags_options() {
    local -ir positional_count="${1}"
    positional_number=0

    local was_flag_option_terminator_seen=false
    local is_parsing_option_value=false

    local -ar unparsed_word_indices=("${!unparsed_words[@]}")
    local -i word_index
    for word_index in "${unparsed_word_indices[@]}"; do
        if "${is_parsing_option_value}"; then
            # This word is an option value:
            # Reset marker for next word iff not currently the last word
            [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]] && is_parsing_option_value=false
            unset "unparsed_words[${word_index}]"
            # Do not process this word as a flag or an option
            continue
        fi

        local word="${unparsed_words["${word_index}"]}"
        if ! "${was_flag_option_terminator_seen}"; then
            case "${word}" in
            --)
                unset "unparsed_words[${word_index}]"
                # by itself -- is a flag/option terminator, but if it is the last word, it is the start of a completion
                if [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]]; then
                    was_flag_option_terminator_seen=true
                fi
                continue
                ;;
            -*)
                # ${word} is a flag or an option
                # If ${word} is an option, mark that the next word to be parsed is an option value
                local option
                for option in "${repeating_options[@]}" "${non_repeating_options[@]}"; do
                    [[ "${word}" = "${option}" ]] && is_parsing_option_value=true && break
                done

                # Remove ${word} from ${non_repeating_flags} or ${non_repeating_options} so it isn't offered again
                local not_found=true
                local -i index
                for index in "${!non_repeating_flags[@]}"; do
                    if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                        unset "non_repeating_flags[${index}]"
                        non_repeating_flags=("${non_repeating_flags[@]}")
                        not_found=false
                        break
                    fi
                done
                if "${not_found}"; then
                    for index in "${!non_repeating_flags[@]}"; do
                        if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                            unset "non_repeating_flags[${index}]"
                            non_repeating_flags=("${non_repeating_flags[@]}")
                            break
                        fi
                    done
                fi
                unset "unparsed_words[${word_index}]"
                continue
                ;;
            esac
        fi

        # ${word} is neither a flag, nor an option, nor an option value
        if [[ "${positional_number}" -lt "${positional_count}" || "${positional_count}" -lt 0 ]]; then
            # ${word} is a positional
            ((positional_number++))
            unset "unparsed_words[${word_index}]"
        else
            if [[ -z "${word}" ]]; then
                # Could be completing a flag, option, or subcommand
                positional_number=-1
            else
                # ${word} is a subcommand or invalid, so stop processing this (sub)command
                positional_number=-2
            fi
            break
        fi
    done

    unparsed_words=("${unparsed_words[@]}")

    if\
        ! "${was_flag_option_terminator_seen}"\
        && ! "${is_parsing_option_value}"\
        && [[ ("${cur}" = -* && "${positional_number}" -ge 0) || "${positional_number}" -eq -1 ]]
    then
        COMPREPLY+=($(compgen -W "${repeating_flags[*]} ${non_repeating_flags[*]} ${repeating_options[*]} ${non_repeating_options[*]}" -- "${cur}"))
    fi
}

__trees_add_completions() {
    local completion
    while IFS='' read -r completion; do
        COMPREPLY+=("${completion}")
    done < <(IFS=$'\n' compgen "${@}" -- "${cur}")
}

__trees_custom_complete() {
    if [[ -n "${cur}" || -z ${COMP_WORDS[${COMP_CWORD}]} || "${COMP_LINE:${COMP_POINT}:1}" != ' ' ]]; then
        local -ar words=("${COMP_WORDS[@]}")
    else
        local -ar words=("${COMP_WORDS[@]::${COMP_CWORD}}" '' "${COMP_WORDS[@]:${COMP_CWORD}}")
    fi

    "${COMP_WORDS[0]}" "${@}" "${words[@]}"
}

_trees() {
    local state
    state="$(shopt -p;shopt -po)"
    trap "${state//$'\n'/;}" RETURN
    shopt -s extglob
    set +o history +o posix

    local -xr SAP_SHELL=bash
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(IFS='.';printf %s "${BASH_VERSINFO[*]}")"
    local -r SAP_SHELL_VERSION

    local -r cur="${2}"
    local -r prev="${3}"

    local -i positional_number
    local -a unparsed_words=("${COMP_WORDS[@]:1:${COMP_CWORD}}")

    local -a repeating_flags=()
    local -a non_repeating_flags=(--version -h --help)
    local -a repeating_options=()
    local -a non_repeating_options=()
    __trees_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    add|list|show|edit|rm|collection|capture|replay|import|export|inspect|photo|stats|doctor|map|gps|ntrip|remote|server|sync|care|schedule|due|help)
        # Offer subcommand argument completions
        "_trees_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'add list show edit rm collection capture replay import export inspect photo stats doctor map gps ntrip remote server sync care schedule due help' -- "${cur}"))
        ;;
    esac
}

_trees_add() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--db --lat --lon --accuracy --altitude --species --variety --rootstock --notes --collection)
    __trees_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    '--lat')
        return
        ;;
    '--lon')
        return
        ;;
    '--accuracy')
        return
        ;;
    '--altitude')
        return
        ;;
    '--species')
        return
        ;;
    '--variety')
        return
        ;;
    '--rootstock')
        return
        ;;
    '--notes')
        return
        ;;
    '--collection')
        return
        ;;
    esac
}

_trees_list() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--db --collection --species --search --limit)
    __trees_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    '--collection')
        return
        ;;
    '--species')
        return
        ;;
    '--search')
        return
        ;;
    '--limit')
        return
        ;;
    esac
}

_trees_show() {
    repeating_flags=()
    non_repeating_flags=(--json --history --version -h --help)
    repeating_options=()
    non_repeating_options=(--db)
    __trees_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    esac
}

_trees_edit() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--db --species --variety --rootstock --notes --collection --lat --lon --accuracy --altitude)
    __trees_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    '--species')
        return
        ;;
    '--variety')
        return
        ;;
    '--rootstock')
        return
        ;;
    '--notes')
        return
        ;;
    '--collection')
        return
        ;;
    '--lat')
        return
        ;;
    '--lon')
        return
        ;;
    '--accuracy')
        return
        ;;
    '--altitude')
        return
        ;;
    esac
}

_trees_rm() {
    repeating_flags=()
    non_repeating_flags=(-y --yes --version -h --help)
    repeating_options=()
    non_repeating_options=(--db)
    __trees_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    esac
}

_trees_collection() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __trees_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    create|list|show|rename|rm|add|remove)
        # Offer subcommand argument completions
        "_trees_collection_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'create list show rename rm add remove' -- "${cur}"))
        ;;
    esac
}

_trees_collection_create() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--db)
    __trees_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    esac
}

_trees_collection_list() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--db)
    __trees_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    esac
}

_trees_collection_show() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--db)
    __trees_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    esac
}

_trees_collection_rename() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--db)
    __trees_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    esac
}

_trees_collection_rm() {
    repeating_flags=()
    non_repeating_flags=(-y --yes --version -h --help)
    repeating_options=()
    non_repeating_options=(--db)
    __trees_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    esac
}

_trees_collection_add() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--db)
    __trees_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    esac
}

_trees_collection_remove() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--db)
    __trees_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    esac
}

_trees_capture() {
    repeating_flags=()
    non_repeating_flags=(--wait --auto --allow-duplicate --json --version -h --help)
    repeating_options=(--photo)
    non_repeating_options=(--db --source --speed --ntrip --species --variety --rootstock --notes --collection --require --encourage --stale --average --require-fix --antenna-height --timeout --update)
    __trees_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    '--source')
        return
        ;;
    '--speed')
        return
        ;;
    '--ntrip')
        return
        ;;
    '--species')
        return
        ;;
    '--variety')
        return
        ;;
    '--rootstock')
        return
        ;;
    '--notes')
        return
        ;;
    '--collection')
        return
        ;;
    '--require')
        return
        ;;
    '--encourage')
        return
        ;;
    '--stale')
        return
        ;;
    '--average')
        return
        ;;
    '--require-fix')
        return
        ;;
    '--antenna-height')
        return
        ;;
    '--timeout')
        return
        ;;
    '--photo')
        return
        ;;
    '--update')
        return
        ;;
    esac
}

_trees_replay() {
    repeating_flags=()
    non_repeating_flags=(--jsonl --gpx --verbose --version -h --help)
    repeating_options=()
    non_repeating_options=(--speed)
    __trees_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--speed')
        return
        ;;
    esac
}

_trees_import() {
    repeating_flags=()
    non_repeating_flags=(--dry-run --json --version -h --help)
    repeating_options=()
    non_repeating_options=(--db --format --collection --on-conflict --species-from --include --layer --map --crs --columns)
    __trees_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    '--format')
        __trees_add_completions -W 'gpx'$'\n''json'$'\n''csv'$'\n''nmea'$'\n''gpkg'$'\n''geojson'
        return
        ;;
    '--collection')
        return
        ;;
    '--on-conflict')
        __trees_add_completions -W 'skip'$'\n''replace'$'\n''new-id'
        return
        ;;
    '--species-from')
        __trees_add_completions -W 'name'$'\n''type'$'\n''desc'$'\n''cmt'
        return
        ;;
    '--include')
        return
        ;;
    '--layer')
        return
        ;;
    '--map')
        return
        ;;
    '--crs')
        return
        ;;
    '--columns')
        return
        ;;
    esac
}

_trees_export() {
    repeating_flags=()
    non_repeating_flags=(--photos --care --version -h --help)
    repeating_options=()
    non_repeating_options=(--db --format --collection --out --for --unknown-accuracy --crs)
    __trees_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    '--format')
        __trees_add_completions -W 'gpx'$'\n''json'$'\n''csv'$'\n''geojson'$'\n''kml'$'\n''gpkg'
        return
        ;;
    '--collection')
        return
        ;;
    '--out')
        return
        ;;
    '--for')
        __trees_add_completions -W 'tree-tracker'
        return
        ;;
    '--unknown-accuracy')
        return
        ;;
    '--crs')
        return
        ;;
    esac
}

_trees_inspect() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--format --crs)
    __trees_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--format')
        __trees_add_completions -W 'gpx'$'\n''json'$'\n''csv'$'\n''nmea'$'\n''gpkg'$'\n''geojson'
        return
        ;;
    '--crs')
        return
        ;;
    esac
}

_trees_photo() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __trees_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    add|list|export|rm)
        # Offer subcommand argument completions
        "_trees_photo_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'add list export rm' -- "${cur}"))
        ;;
    esac
}

_trees_photo_add() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--db)
    __trees_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    esac
}

_trees_photo_list() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--db)
    __trees_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    esac
}

_trees_photo_export() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--db)
    __trees_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    esac
}

_trees_photo_rm() {
    repeating_flags=()
    non_repeating_flags=(-y --yes --version -h --help)
    repeating_options=()
    non_repeating_options=(--db)
    __trees_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    esac
}

_trees_stats() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--db --collection)
    __trees_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    '--collection')
        return
        ;;
    esac
}

_trees_doctor() {
    repeating_flags=()
    non_repeating_flags=(--repair --remove-unrepairable --json --version -h --help)
    repeating_options=()
    non_repeating_options=(--db)
    __trees_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    esac
}

_trees_map() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--db --collection --labels --color --colour --out --tiles)
    __trees_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    '--collection')
        return
        ;;
    '--labels')
        __trees_add_completions -W 'species'$'\n''variety'
        return
        ;;
    '--color'|'--colour')
        __trees_add_completions -W 'species'$'\n''accuracy'
        return
        ;;
    '--out')
        return
        ;;
    '--tiles')
        return
        ;;
    esac
}

_trees_gps() {
    repeating_flags=()
    non_repeating_flags=(--wait --jsonl --status --version -h --help)
    repeating_options=()
    non_repeating_options=(--source --speed --ntrip --count --duration)
    __trees_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--source')
        return
        ;;
    '--speed')
        return
        ;;
    '--ntrip')
        return
        ;;
    '--count')
        return
        ;;
    '--duration')
        return
        ;;
    esac
}

_trees_ntrip() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __trees_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    list)
        # Offer subcommand argument completions
        "_trees_ntrip_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'list' -- "${cur}"))
        ;;
    esac
}

_trees_ntrip_list() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __trees_offer_flags_options 1
}

_trees_remote() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __trees_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    add|list|rm)
        # Offer subcommand argument completions
        "_trees_remote_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'add list rm' -- "${cur}"))
        ;;
    esac
}

_trees_remote_add() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--db)
    __trees_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    esac
}

_trees_remote_list() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--db)
    __trees_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    esac
}

_trees_remote_rm() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--db)
    __trees_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    esac
}

_trees_server() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __trees_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    init)
        # Offer subcommand argument completions
        "_trees_server_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'init' -- "${cur}"))
        ;;
    esac
}

_trees_server_init() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--db)
    __trees_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    esac
}

_trees_sync() {
    repeating_flags=()
    non_repeating_flags=(--dry-run --json --version -h --help)
    repeating_options=()
    non_repeating_options=(--db)
    __trees_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    esac
}

_trees_care() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __trees_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    add|list|edit|rm)
        # Offer subcommand argument completions
        "_trees_care_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'add list edit rm' -- "${cur}"))
        ;;
    esac
}

_trees_care_add() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=(--photo)
    non_repeating_options=(--db --collection --date --notes --quantity --health --who)
    __trees_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    '--collection')
        return
        ;;
    '--date')
        return
        ;;
    '--notes')
        return
        ;;
    '--quantity')
        return
        ;;
    '--health')
        return
        ;;
    '--who')
        return
        ;;
    '--photo')
        return
        ;;
    esac
}

_trees_care_list() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--db --collection --kind --since --limit)
    __trees_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    '--collection')
        return
        ;;
    '--kind')
        return
        ;;
    '--since')
        return
        ;;
    '--limit')
        return
        ;;
    esac
}

_trees_care_edit() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--db --kind --date --notes --quantity --health --who)
    __trees_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    '--kind')
        return
        ;;
    '--date')
        return
        ;;
    '--notes')
        return
        ;;
    '--quantity')
        return
        ;;
    '--health')
        return
        ;;
    '--who')
        return
        ;;
    esac
}

_trees_care_rm() {
    repeating_flags=()
    non_repeating_flags=(-y --yes --version -h --help)
    repeating_options=()
    non_repeating_options=(--db)
    __trees_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    esac
}

_trees_schedule() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __trees_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    set|list|rm)
        # Offer subcommand argument completions
        "_trees_schedule_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'set list rm' -- "${cur}"))
        ;;
    esac
}

_trees_schedule_set() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--db --collection --every --from --season)
    __trees_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    '--collection')
        return
        ;;
    '--every')
        return
        ;;
    '--from')
        return
        ;;
    '--season')
        return
        ;;
    esac
}

_trees_schedule_list() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--db)
    __trees_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    esac
}

_trees_schedule_rm() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--db --collection)
    __trees_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    '--collection')
        return
        ;;
    esac
}

_trees_due() {
    repeating_flags=()
    non_repeating_flags=(--json --ics --version -h --help)
    repeating_options=()
    non_repeating_options=(--db --within --collection)
    __trees_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    '--within')
        return
        ;;
    '--collection')
        return
        ;;
    esac
}

_trees_help() {
    repeating_flags=()
    non_repeating_flags=(--version)
    repeating_options=()
    non_repeating_options=()
    __trees_offer_flags_options -1
}

complete -o filenames -F _trees trees
