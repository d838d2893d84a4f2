function __trees_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __trees_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __trees_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __trees_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __trees_parse_tokens -S
    set -l unparsed_tokens (__trees_tokens -pc)
    switch $unparsed_tokens[1]
    case 'trees'
        __trees_parse_subcommand 0 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'add'
            __trees_parse_subcommand 0 'db=' 'lat=' 'lon=' 'accuracy=' 'altitude=' 'species=' 'variety=' 'rootstock=' 'notes=' 'collection=' 'json' 'version' 'h/help'
        case 'list'
            __trees_parse_subcommand 0 'db=' 'collection=' 'species=' 'search=' 'limit=' 'json' 'version' 'h/help'
        case 'show'
            __trees_parse_subcommand 1 'db=' 'json' 'history' 'version' 'h/help'
        case 'edit'
            __trees_parse_subcommand 1 'db=' 'species=' 'variety=' 'rootstock=' 'notes=' 'collection=' 'lat=' 'lon=' 'accuracy=' 'altitude=' 'json' 'version' 'h/help'
        case 'rm'
            __trees_parse_subcommand -r 1 'db=' 'y/yes' 'version' 'h/help'
        case 'collection'
            __trees_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'create'
                __trees_parse_subcommand 1 'db=' 'json' 'version' 'h/help'
            case 'list'
                __trees_parse_subcommand 0 'db=' 'json' 'version' 'h/help'
            case 'show'
                __trees_parse_subcommand 1 'db=' 'json' 'version' 'h/help'
            case 'rename'
                __trees_parse_subcommand 2 'db=' 'version' 'h/help'
            case 'rm'
                __trees_parse_subcommand 1 'db=' 'y/yes' 'version' 'h/help'
            case 'add'
                __trees_parse_subcommand -r 2 'db=' 'version' 'h/help'
            case 'remove'
                __trees_parse_subcommand -r 2 'db=' 'version' 'h/help'
            end
        case 'capture'
            __trees_parse_subcommand 0 'db=' 'source=' 'speed=' 'wait' 'species=' 'variety=' 'rootstock=' 'notes=' 'collection=' 'require=' 'encourage=' 'stale=' 'average=' 'auto' 'timeout=' 'photo=+' 'update=' 'allow-duplicate' 'json' 'version' 'h/help'
        case 'replay'
            __trees_parse_subcommand 1 'speed=' 'jsonl' 'gpx' 'verbose' 'version' 'h/help'
        case 'import'
            __trees_parse_subcommand 1 'db=' 'format=' 'collection=' 'dry-run' 'on-conflict=' 'species-from=' 'include=' 'layer=' 'map=' 'crs=' 'columns=' 'json' 'version' 'h/help'
        case 'export'
            __trees_parse_subcommand 0 'db=' 'format=' 'collection=' 'photos' 'out=' 'for=' 'unknown-accuracy=' 'crs=' 'version' 'h/help'
        case 'inspect'
            __trees_parse_subcommand 1 'format=' 'crs=' 'json' 'version' 'h/help'
        case 'photo'
            __trees_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'add'
                __trees_parse_subcommand -r 2 'db=' 'json' 'version' 'h/help'
            case 'list'
                __trees_parse_subcommand 1 'db=' 'json' 'version' 'h/help'
            case 'export'
                __trees_parse_subcommand 2 'db=' 'version' 'h/help'
            case 'rm'
                __trees_parse_subcommand 2 'db=' 'y/yes' 'version' 'h/help'
            end
        case 'stats'
            __trees_parse_subcommand 0 'db=' 'collection=' 'json' 'version' 'h/help'
        case 'doctor'
            __trees_parse_subcommand 0 'db=' 'repair' 'remove-unrepairable' 'json' 'version' 'h/help'
        case 'map'
            __trees_parse_subcommand 0 'db=' 'collection=' 'labels=' 'color=' 'out=' 'tiles=' 'version' 'h/help'
        case 'gps'
            __trees_parse_subcommand 0 'source=' 'speed=' 'wait' 'count=' 'duration=' 'jsonl' 'status' 'version' 'h/help'
        case 'remote'
            __trees_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'add'
                __trees_parse_subcommand 2 'db=' 'version' 'h/help'
            case 'list'
                __trees_parse_subcommand 0 'db=' 'json' 'version' 'h/help'
            case 'rm'
                __trees_parse_subcommand 1 'db=' 'version' 'h/help'
            end
        case 'server'
            __trees_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'init'
                __trees_parse_subcommand 1 'db=' 'version' 'h/help'
            end
        case 'sync'
            __trees_parse_subcommand 1 'db=' 'dry-run' 'json' 'version' 'h/help'
        case 'help'
            __trees_parse_subcommand -r 1 'version'
        end
    end
end

function __trees_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __trees_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __trees_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __trees_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__trees_tokens -p)
    if test -z "$(__trees_tokens -t)"
        set -l index (count (__trees_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'trees' -f
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees" -eq 1' -fa 'add' -d 'Add a tree measured elsewhere.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees" -eq 1' -fa 'list' -d 'List trees, newest first.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees" -eq 1' -fa 'show' -d 'Show everything about one tree.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees" -eq 1' -fa 'edit' -d 'Change a tree\'s attributes or position.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees" -eq 1' -fa 'rm' -d 'Delete trees.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees" -eq 1' -fa 'collection' -d 'Manage collections (orchard blocks, streets, surveys). Names are unique ignoring case.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees" -eq 1' -fa 'capture' -d 'Capture a tree\'s position from a live or replayed GPS, then record what grows there.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees" -eq 1' -fa 'replay' -d 'Read a recorded NMEA track and print one line per fix.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees" -eq 1' -fa 'import' -d 'Import trees from GPX, collection JSON, CSV or GeoPackage, in one all-or-nothing transaction.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees" -eq 1' -fa 'export' -d 'Export trees as GPX, collection JSON, CSV, GeoJSON, KML or GeoPackage.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees" -eq 1' -fa 'inspect' -d 'Summarise a GPX, collection JSON, CSV, NMEA or GeoPackage file without importing it.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees" -eq 1' -fa 'photo' -d 'Attach photos to trees, list, export and remove them.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees" -eq 1' -fa 'stats' -d 'Count trees by species, variety, rootstock and collection; show accuracy and captures per day.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees" -eq 1' -fa 'doctor' -d 'Check the store for damaged values and mend what can be mended.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees" -eq 1' -fa 'map' -d 'Write an offline HTML map of the trees.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees" -eq 1' -fa 'gps' -d 'Show the live fix from gpsd, a serial receiver, a recorded track or NMEA on standard input.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees" -eq 1' -fa 'remote' -d 'Manage the PostgreSQL servers this store syncs with. Passwords are never stored.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees" -eq 1' -fa 'server' -d 'Prepare a PostgreSQL/PostGIS server for team sync.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees" -eq 1' -fa 'sync' -d 'Push local changes to a remote and pull everyone else\'s.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees add" db' -l 'db' -d 'The trees database (default: $TREES_DB, else $XDG_DATA_HOME/trees/trees.sqlite, else ~/.local/share/trees/trees.sqlite).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees add" lat' -l 'lat' -d 'Latitude in degrees (-90…90, south negative).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees add" lon' -l 'lon' -d 'Longitude in degrees (-180…180, west negative).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees add" accuracy' -l 'accuracy' -d 'Horizontal accuracy: radius of the 95% circle, in metres.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees add" altitude' -l 'altitude' -d 'Altitude above mean sea level, in metres.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees add" species' -l 'species' -d 'Species, e.g. Apple or \'Quercus robur\'.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees add" variety' -l 'variety' -d 'Variety (cultivar), e.g. Gala.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees add" rootstock' -l 'rootstock' -d 'Rootstock, e.g. M9.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees add" notes' -l 'notes' -d 'Free-text notes.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees add" collection' -l 'collection' -d 'Collection name, or \'none\' for no collection (default: the last used).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees add" json' -l 'json' -d 'Print the tree as JSON.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees add" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees add" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees list" db' -l 'db' -d 'The trees database (default: $TREES_DB, else $XDG_DATA_HOME/trees/trees.sqlite, else ~/.local/share/trees/trees.sqlite).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees list" collection' -l 'collection' -d 'Only trees in this collection (\'none\': trees in no collection).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees list" species' -l 'species' -d 'Only trees of this species (ignoring case).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees list" search' -l 'search' -d 'Only trees whose species, variety, rootstock or notes contain this text (ignoring case).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees list" limit' -l 'limit' -d 'Show at most this many trees.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees list" json' -l 'json' -d 'Print a JSON array of trees.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees list" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees show" db' -l 'db' -d 'The trees database (default: $TREES_DB, else $XDG_DATA_HOME/trees/trees.sqlite, else ~/.local/share/trees/trees.sqlite).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees show" json' -l 'json' -d 'Print the tree as JSON.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees show" history' -l 'history' -d 'Also show the tree\'s history: position changes, and values that lost to a later version or a deletion in a sync.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees show" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees show" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees edit" db' -l 'db' -d 'The trees database (default: $TREES_DB, else $XDG_DATA_HOME/trees/trees.sqlite, else ~/.local/share/trees/trees.sqlite).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees edit" species' -l 'species' -d 'Species, e.g. Apple or \'Quercus robur\'.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees edit" variety' -l 'variety' -d 'Variety (cultivar), e.g. Gala.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees edit" rootstock' -l 'rootstock' -d 'Rootstock, e.g. M9.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees edit" notes' -l 'notes' -d 'Free-text notes.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees edit" collection' -l 'collection' -d 'Collection name, or \'none\' for no collection (default: the last used).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees edit" lat' -l 'lat' -d 'New latitude in degrees.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees edit" lon' -l 'lon' -d 'New longitude in degrees.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees edit" accuracy' -l 'accuracy' -d 'New horizontal accuracy (95% radius), in metres.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees edit" altitude' -l 'altitude' -d 'New altitude above mean sea level, in metres.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees edit" json' -l 'json' -d 'Print the tree as JSON.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees edit" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees edit" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees rm" db' -l 'db' -d 'The trees database (default: $TREES_DB, else $XDG_DATA_HOME/trees/trees.sqlite, else ~/.local/share/trees/trees.sqlite).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees rm" y yes' -s 'y' -l 'yes' -d 'Do not ask for confirmation.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees rm" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees rm" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees collection" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees collection" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees collection" -eq 1' -fa 'create' -d 'Create a collection.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees collection" -eq 1' -fa 'list' -d 'List collections alphabetically, with tree counts.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees collection" -eq 1' -fa 'show' -d 'Show a collection and its trees.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees collection" -eq 1' -fa 'rename' -d 'Rename a collection.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees collection" -eq 1' -fa 'rm' -d 'Delete a collection; its trees stay, in no collection.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees collection" -eq 1' -fa 'add' -d 'Put trees into a collection.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees collection" -eq 1' -fa 'remove' -d 'Take trees out of a collection (the trees stay).'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees collection create" db' -l 'db' -d 'The trees database (default: $TREES_DB, else $XDG_DATA_HOME/trees/trees.sqlite, else ~/.local/share/trees/trees.sqlite).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees collection create" json' -l 'json' -d 'Print the collection as JSON.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees collection create" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees collection create" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees collection list" db' -l 'db' -d 'The trees database (default: $TREES_DB, else $XDG_DATA_HOME/trees/trees.sqlite, else ~/.local/share/trees/trees.sqlite).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees collection list" json' -l 'json' -d 'Print a JSON array of collections.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees collection list" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees collection list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees collection show" db' -l 'db' -d 'The trees database (default: $TREES_DB, else $XDG_DATA_HOME/trees/trees.sqlite, else ~/.local/share/trees/trees.sqlite).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees collection show" json' -l 'json' -d 'Print the collection and its trees as JSON.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees collection show" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees collection show" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees collection rename" db' -l 'db' -d 'The trees database (default: $TREES_DB, else $XDG_DATA_HOME/trees/trees.sqlite, else ~/.local/share/trees/trees.sqlite).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees collection rename" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees collection rename" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees collection rm" db' -l 'db' -d 'The trees database (default: $TREES_DB, else $XDG_DATA_HOME/trees/trees.sqlite, else ~/.local/share/trees/trees.sqlite).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees collection rm" y yes' -s 'y' -l 'yes' -d 'Do not ask for confirmation.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees collection rm" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees collection rm" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees collection add" db' -l 'db' -d 'The trees database (default: $TREES_DB, else $XDG_DATA_HOME/trees/trees.sqlite, else ~/.local/share/trees/trees.sqlite).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees collection add" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees collection add" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees collection remove" db' -l 'db' -d 'The trees database (default: $TREES_DB, else $XDG_DATA_HOME/trees/trees.sqlite, else ~/.local/share/trees/trees.sqlite).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees collection remove" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees collection remove" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees capture" db' -l 'db' -d 'The trees database (default: $TREES_DB, else $XDG_DATA_HOME/trees/trees.sqlite, else ~/.local/share/trees/trees.sqlite).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees capture" source' -l 'source' -d 'Where fixes come from: gpsd://HOST:PORT[/DEVICE], serial:/dev/ttyACM0[?baud=9600], replay:PATH[?speed=N|max], or - for NMEA on standard input.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees capture" speed' -l 'speed' -d 'Replay speed for replay: sources: a factor of real time, or max.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees capture" wait' -l 'wait' -d 'If gpsd cannot be reached at start, keep trying instead of failing.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees capture" species' -l 'species' -d 'Species, e.g. Apple or \'Quercus robur\'.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees capture" variety' -l 'variety' -d 'Variety (cultivar), e.g. Gala.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees capture" rootstock' -l 'rootstock' -d 'Rootstock, e.g. M9.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees capture" notes' -l 'notes' -d 'Free-text notes.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees capture" collection' -l 'collection' -d 'Collection name, or \'none\' for no collection (default: the last used).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees capture" require' -l 'require' -d 'Capture needs accuracy under this many metres.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees capture" encourage' -l 'encourage' -d 'Accuracy under this many metres is good; above it the view encourages waiting.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees capture" stale' -l 'stale' -d 'A fix older than this many seconds no longer counts.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees capture" average' -l 'average' -d 'Freeze the average of this many epochs that pass the gate (with --auto: always; on a terminal: the a key, default 10).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees capture" auto' -l 'auto' -d 'Capture without prompts: wait for a good fix (or the best acceptable one at the timeout), save, print.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees capture" timeout' -l 'timeout' -d 'With --auto: stop waiting after this many seconds.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees capture"' -l 'photo' -d 'A photo file to attach (repeatable).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees capture" update' -l 'update' -d 'Re-capture the position of this existing tree (keeps its attributes).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees capture" allow-duplicate' -l 'allow-duplicate' -d 'Save even when a tree of the same species lies within the accuracy circle.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees capture" json' -l 'json' -d 'Print the saved tree as JSON (as trees show --json).'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees capture" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees capture" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees replay" speed' -l 'speed' -d 'A factor of real time, or max for no pacing.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees replay" jsonl' -l 'jsonl' -d 'Write one gpsd-style TPV JSON object per fix (JSON Lines).'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees replay" gpx' -l 'gpx' -d 'Write the fixes as a GPX 1.1 track.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees replay" verbose' -l 'verbose' -d 'List every skipped line with its line number and reason.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees replay" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees replay" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees import" db' -l 'db' -d 'The trees database (default: $TREES_DB, else $XDG_DATA_HOME/trees/trees.sqlite, else ~/.local/share/trees/trees.sqlite).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees import" format' -l 'format' -d 'gpx, json, csv or gpkg (default: from the content and the name).' -rfka 'gpx json csv nmea gpkg'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees import" collection' -l 'collection' -d 'Put every imported tree in this collection (created when missing).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees import" dry-run' -l 'dry-run' -d 'Read and check everything, report what would happen, store nothing.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees import" on-conflict' -l 'on-conflict' -d 'When a tree\'s id is already stored: skip (default), replace, or new-id.' -rfka 'skip replace new-id'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees import" species-from' -l 'species-from' -d 'GPX without trees extensions: take the species from name (default), type, desc or cmt.' -rfka 'name type desc cmt'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees import" include' -l 'include' -d 'GPX: also import points of routes, tracks or both (routes,tracks).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees import" layer' -l 'layer' -d 'GeoPackage: the layer to import (default: the first point layer).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees import" map' -l 'map' -d 'GeoPackage: the column of each field, as field=column,… (fields: id, species, variety, rootstock, notes, collection, horizontalAccuracy, accuracySource, altitude, ellipsoidHeight, createdAt, updatedAt, fixTime, fixMode, satellites, hdop, averagedEpochs, locationSource).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees import" crs' -l 'crs' -d 'CSV: the coordinate reference system of the positions, EPSG:CODE (default: WGS 84 latitude and longitude).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees import" columns' -l 'columns' -d 'CSV: the column of each field, as field=column,… (species=Spp,easting=East,northing=North).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees import" json' -l 'json' -d 'Print the summary as JSON.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees import" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees import" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees export" db' -l 'db' -d 'The trees database (default: $TREES_DB, else $XDG_DATA_HOME/trees/trees.sqlite, else ~/.local/share/trees/trees.sqlite).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees export" format' -l 'format' -d 'gpx, json, csv, geojson, kml or gpkg.' -rfka 'gpx json csv geojson kml gpkg'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees export" collection' -l 'collection' -d 'Only the trees of this collection.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees export" photos' -l 'photos' -d 'Embed photos (base64) in a JSON export.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees export" out' -l 'out' -d 'A file, a folder, or - for standard output.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees export" for' -l 'for' -d 'With --format json: \'tree-tracker\' writes exactly what the iOS Tree Tracker app reads (its keys, whole seconds, its accuracy meaning).' -rfka 'tree-tracker'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees export" unknown-accuracy' -l 'unknown-accuracy' -d 'With --for tree-tracker: the accuracy to write for trees without one (the app needs one), in metres; without it such trees refuse the export.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees export" crs' -l 'crs' -d 'With --format gpkg or csv: the coordinate reference system of the positions, EPSG:CODE or utm (the zone of the trees\' centre); WGS 84 without it.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees export" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees export" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees inspect" format' -l 'format' -d 'gpx, json, csv, nmea or gpkg (default: from the content and the name).' -rfka 'gpx json csv nmea gpkg'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees inspect" crs' -l 'crs' -d 'CSV: the coordinate reference system of easting and northing columns, EPSG:CODE.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees inspect" json' -l 'json' -d 'Print the summary as JSON.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees inspect" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees inspect" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees photo" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees photo" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees photo" -eq 1' -fa 'add' -d 'Attach photo files to a tree.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees photo" -eq 1' -fa 'list' -d 'List a tree\'s photos, oldest first.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees photo" -eq 1' -fa 'export' -d 'Copy a tree\'s photos into a folder.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees photo" -eq 1' -fa 'rm' -d 'Remove a photo from a tree.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees photo add" db' -l 'db' -d 'The trees database (default: $TREES_DB, else $XDG_DATA_HOME/trees/trees.sqlite, else ~/.local/share/trees/trees.sqlite).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees photo add" json' -l 'json' -d 'Print the new photos as JSON.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees photo add" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees photo add" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees photo list" db' -l 'db' -d 'The trees database (default: $TREES_DB, else $XDG_DATA_HOME/trees/trees.sqlite, else ~/.local/share/trees/trees.sqlite).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees photo list" json' -l 'json' -d 'Print a JSON array of photos.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees photo list" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees photo list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees photo export" db' -l 'db' -d 'The trees database (default: $TREES_DB, else $XDG_DATA_HOME/trees/trees.sqlite, else ~/.local/share/trees/trees.sqlite).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees photo export" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees photo export" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees photo rm" db' -l 'db' -d 'The trees database (default: $TREES_DB, else $XDG_DATA_HOME/trees/trees.sqlite, else ~/.local/share/trees/trees.sqlite).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees photo rm" y yes' -s 'y' -l 'yes' -d 'Do not ask for confirmation.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees photo rm" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees photo rm" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees stats" db' -l 'db' -d 'The trees database (default: $TREES_DB, else $XDG_DATA_HOME/trees/trees.sqlite, else ~/.local/share/trees/trees.sqlite).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees stats" collection' -l 'collection' -d 'Only trees in this collection (\'none\': trees in no collection).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees stats" json' -l 'json' -d 'Print the statistics as JSON.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees stats" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees stats" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees doctor" db' -l 'db' -d 'The trees database (default: $TREES_DB, else $XDG_DATA_HOME/trees/trees.sqlite, else ~/.local/share/trees/trees.sqlite).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees doctor" repair' -l 'repair' -d 'Mend what can be mended, in one transaction.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees doctor" remove-unrepairable' -l 'remove-unrepairable' -d 'With --repair, remove rows that cannot be mended (a damaged id or position).'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees doctor" json' -l 'json' -d 'Print the findings as JSON.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees doctor" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees doctor" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees map" db' -l 'db' -d 'The trees database (default: $TREES_DB, else $XDG_DATA_HOME/trees/trees.sqlite, else ~/.local/share/trees/trees.sqlite).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees map" collection' -l 'collection' -d 'Only trees in this collection (\'none\': trees in no collection).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees map" labels' -l 'labels' -d 'What the labels show: species or variety (default: the last choice, else species).' -rfka 'species variety'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees map" color colour' -l 'color' -l 'colour' -d 'Colour markers by species or by accuracy class.' -rfka 'species accuracy'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees map" out' -l 'out' -d 'The HTML file to write, \'-\' for standard output (default: trees_yyyy-MM-dd_HHmmss.html, or the collection\'s name as a slug, in the current folder).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees map" tiles' -l 'tiles' -d 'Tile URL template with {z}, {x} and {y} for a background map (the page then loads tiles from there).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees map" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees map" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees gps" source' -l 'source' -d 'Where fixes come from: gpsd://HOST:PORT[/DEVICE], serial:/dev/ttyACM0[?baud=9600], replay:PATH[?speed=N|max], or - for NMEA on standard input.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees gps" speed' -l 'speed' -d 'Replay speed for replay: sources: a factor of real time, or max.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees gps" wait' -l 'wait' -d 'If gpsd cannot be reached at start, keep trying instead of failing.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees gps" count' -l 'count' -d 'Stop after this many fixes.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees gps" duration' -l 'duration' -d 'Stop after this many seconds.' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees gps" jsonl' -l 'jsonl' -d 'Write one JSON object per fix and per status event (JSON Lines).'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees gps" status' -l 'status' -d 'Print the source\'s version and devices, then exit.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees gps" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees gps" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees remote" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees remote" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees remote" -eq 1' -fa 'add' -d 'Add a remote.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees remote" -eq 1' -fa 'list' -d 'List remotes and when each was last synced.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees remote" -eq 1' -fa 'rm' -d 'Remove a remote (the server keeps its data).'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees remote add" db' -l 'db' -d 'The trees database (default: $TREES_DB, else $XDG_DATA_HOME/trees/trees.sqlite, else ~/.local/share/trees/trees.sqlite).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees remote add" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees remote add" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees remote list" db' -l 'db' -d 'The trees database (default: $TREES_DB, else $XDG_DATA_HOME/trees/trees.sqlite, else ~/.local/share/trees/trees.sqlite).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees remote list" json' -l 'json' -d 'Print a JSON array of remotes.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees remote list" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees remote list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees remote rm" db' -l 'db' -d 'The trees database (default: $TREES_DB, else $XDG_DATA_HOME/trees/trees.sqlite, else ~/.local/share/trees/trees.sqlite).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees remote rm" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees remote rm" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees server" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees server" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_positional "trees server" -eq 1' -fa 'init' -d 'Create or upgrade the server\'s schema (PostGIS, trees, collections, photos, history, the QGIS layer trees_layer). Safe to run again.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees server init" db' -l 'db' -d 'The trees database (default: $TREES_DB, else $XDG_DATA_HOME/trees/trees.sqlite, else ~/.local/share/trees/trees.sqlite).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees server init" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees server init" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees sync" db' -l 'db' -d 'The trees database (default: $TREES_DB, else $XDG_DATA_HOME/trees/trees.sqlite, else ~/.local/share/trees/trees.sqlite).' -rfka ''
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees sync" dry-run' -l 'dry-run' -d 'Count what would be pushed and pulled, changing nothing.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees sync" json' -l 'json' -d 'Print the report as JSON.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees sync" version' -l 'version' -d 'Show the version.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees sync" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'trees' -n '__trees_should_offer_completions_for_flags_or_options "trees help" version' -l 'version' -d 'Show the version.'
