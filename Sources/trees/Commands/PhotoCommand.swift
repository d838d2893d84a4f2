import ArgumentParser
import Foundation
import TreesKit
import TreesStore
import TreesWorkflows

struct PhotoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "photo",
        abstract: "Attach photos to trees, list, export and remove them.",
        discussion: """
            Photos are JPEG, PNG or HEIC files, recognised by their content. They are copied into the \
            folder 'photos' beside the database, named by the SHA-256 of their bytes, so the same photo \
            is stored once however often it is attached. The capture date is EXIF DateTimeOriginal when \
            the file has one, else the file's modification time.
            """,
        subcommands: [Add.self, List.self, Export.self, Remove.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Attach photo files to a tree.",
            discussion: "Any file that is not a JPEG, PNG or HEIC image refuses the whole command; nothing is attached.")
        @OptionGroup var store: StoreOptions
        @Argument(help: ArgumentHelp("The tree's short id as 'trees list' shows it, its id, or any unique prefix of its id.", valueName: "id")) var id: String
        @Argument(help: ArgumentHelp("Photo files (JPEG, PNG or HEIC).", valueName: "file")) var files: [String]
        @Flag(help: "Print the new photos as JSON.") var json = false

        func validate() throws {
            if files.isEmpty { throw ValidationError("name at least one photo file") }
        }

        func run() async throws {
            let db = try store.open(forWriting: true)
            let library = db.photoLibrary
            // Files are copied and hashed before the store is locked; the transaction only records rows.
            let (tree, result, warnings) = try PhotoErrors.mapped { try library.add(files: files, toTreeMatching: id, in: db) }
            for w in warnings { StandardError.write("warning: \(TerminalText.escaped(w))\n") }
            for file in result.alreadyAttached {
                StandardError.write("\(file): tree \(tree.shortID) already has this photo; skipped\n")
            }
            if json {
                Output.json(.array(result.added.map { $0.json(path: library.path(of: $0)) }))
                return
            }
            for photo in result.added {
                Output.line("added photo \(ShortID.of(photo.id)) to tree \(tree.shortID) (\(photo.format), taken \(Format.date(photo.capturedAt)))")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List a tree's photos, oldest first.", aliases: ["ls"])
        @OptionGroup var store: StoreOptions
        @Argument(help: ArgumentHelp("The tree's short id as 'trees list' shows it, its id, or any unique prefix of its id.", valueName: "id")) var id: String
        @Flag(help: "Print a JSON array of photos.") var json = false

        func run() async throws {
            let db = try store.open()
            let library = db.photoLibrary
            let photos = try db.read { r in try r.photos(of: try r.tree(matching: id).id) }
            if json {
                Output.json(.array(photos.map { $0.json(path: library.path(of: $0)) }))
                return
            }
            guard !photos.isEmpty else { StandardError.write("no photos\n"); return }
            var table = TextTable(headers: ["ID", "FORMAT", "SIZE", "TAKEN", "FILE"])
            for p in photos {
                table.rows.append([ShortID.of(p.id), p.format, Format.bytes(p.byteCount), Format.date(p.capturedAt), library.path(of: p)])
            }
            Output.human(table.render(terminal: .current))
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export", abstract: "Copy a tree's photos into a folder.",
            discussion: """
                Files are named TREE_yyyy-MM-dd_HHmmss_PHOTO.EXT (tree and photo short ids, capture time in UTC) \
                and written through a temporary file; the folder is created when missing. Prints each path written.
                """)
        @OptionGroup var store: StoreOptions
        @Argument(help: ArgumentHelp("The tree's short id as 'trees list' shows it, its id, or any unique prefix of its id.", valueName: "id")) var id: String
        @Argument(help: ArgumentHelp("The folder to copy the photos into.", valueName: "dir")) var directory: String

        func run() async throws {
            let db = try store.open()
            let (tree, photos) = try db.read { r in
                let tree = try r.tree(matching: id)
                return (tree, try r.photos(of: tree.id))
            }
            guard !photos.isEmpty else {
                StandardError.write("tree \(tree.shortID) has no photos; nothing exported\n")
                return
            }
            for path in try PhotoExport.run(photos, from: db.photoLibrary, to: directory) { Output.line(path) }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm", abstract: "Remove a photo from a tree.",
            discussion: """
                The photo's file is deleted when no other tree refers to it. Asks for confirmation on a \
                terminal unless --yes is given; without a terminal --yes is required.
                """,
            aliases: ["remove"])
        @OptionGroup var store: StoreOptions
        @Argument(help: ArgumentHelp("The tree's short id as 'trees list' shows it, its id, or any unique prefix of its id.", valueName: "id")) var id: String
        @Argument(help: ArgumentHelp("The photo's short id as 'trees photo list' shows it, its id, or any unique prefix of its id.", valueName: "photo"))
        var photo: String
        @Flag(name: [.short, .long], help: "Do not ask for confirmation.") var yes = false

        func run() async throws {
            let db = try store.open()
            let library = db.photoLibrary
            let (tree, target) = try PhotoErrors.mapped {
                try db.read { r in
                    let tree = try r.tree(matching: id)
                    return (tree, try library.photo(matching: photo, of: tree.id, in: r))
                }
            }
            if !yes {
                guard Terminal.current.stdinIsTTY else {
                    throw CLIError("refusing to remove photo \(ShortID.of(target.id)) without confirmation; add --yes", status: .usage)
                }
                guard Confirm.ask("Remove photo \(ShortID.of(target.id)) from tree \(tree.shortID) (\(tree.species))?") else {
                    StandardError.write("nothing removed\n")
                    return
                }
            }
            let removed = try PhotoErrors.mapped { try db.write { w in try library.remove(target, in: w) } }
            if removed.orphaned { library.removeFiles(of: [removed.photo.sha256]) }
            Output.line("removed photo \(ShortID.of(target.id)) from tree \(tree.shortID)")
        }
    }
}

/// Maps photo problems onto messages and exit statuses.
enum PhotoErrors {
    static func mapped<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch StoreError.photo(let problem) {
            throw cliError(problem)
        }
    }

    static func cliError(_ error: PhotoProblem) -> CLIError {
        switch error {
        case .unreadable: CLIError(error.description, status: .noInput)
        case .notAnImage: CLIError(error.description, status: .dataError)
        case .cannotWrite: CLIError(error.description, status: .cannotCreate)
        case .missingFile: CLIError(error.description, status: .ioError)
        case .invalidPhotoID: CLIError(error.description, status: .usage)
        case .unknownPhoto, .ambiguousPhoto: CLIError(error.description, status: .failure)
        }
    }
}

extension Photo {
    func json(path: String) -> JSON {
        .object([
            ("id", .string(id.uuidString)),
            ("treeId", .string(treeID.uuidString)),
            ("sha256", .string(sha256)),
            ("format", .string(format)),
            ("byteCount", .int(byteCount)),
            ("capturedAt", .string(ISOTime.string(capturedAt))),
            ("createdAt", .string(ISOTime.string(createdAt))),
            ("path", .string(path)),
        ])
    }
}

extension Format {
    /// A byte count for people: `812 B`, `14.2 kB`, `3.1 MB` (powers of 1000).
    static func bytes(_ n: Int) -> String {
        switch n {
        case ..<1000: "\(n) B"
        case ..<1_000_000: String(format: "%.1f kB", Double(n) / 1000)
        default: String(format: "%.1f MB", Double(n) / 1_000_000)
        }
    }
}
