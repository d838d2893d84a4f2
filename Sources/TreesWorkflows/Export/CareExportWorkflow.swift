import Foundation
import Interchange
import TreesKit
import TreesStore

/// Exporting the care log (all, or one collection's) as CSV, one row per event, newest first,
/// streamed into an `OutputFile`: a file appears under its name only when complete.
public struct CareExportWorkflow: Sendable {
    /// Only the events of trees in the collection of this name.
    public var collection: String?

    public init(collection: String? = nil) { self.collection = collection }

    /// Writes the export to `destination`; returns the number of events written.
    public func run(from store: TreeStore, to destination: OutputDestination) throws -> Int {
        var written = 0
        var sinkError: WorkflowError?
        let output = try OutputFile(destination, protecting: store.files)
        do {
            try store.read { r in
                var filter = CareFilter()
                if let collection { filter.scope = .collection(try r.collection(named: collection).id) }
                let names = Dictionary(uniqueKeysWithValues: try r.collections().map { ($0.collection.id, $0.collection.name) })
                var writer = CareCSVWriter { bytes in
                    do throws(WorkflowError) { try output.write(bytes) } catch { sinkError = error; throw error }
                }
                try writer.begin()
                try r.forEachCareEntry(filter) { entry in
                    try writer.write(CareCSVWriter.Row(event: entry.event, species: entry.species, variety: entry.variety,
                                                       collection: entry.collectionID.flatMap { names[$0] }))
                    written += 1
                }
                try writer.finish()
            }
            try output.commit()
        } catch let e as StoreError {
            output.abandon()
            throw WorkflowError.store(e, nothingStored: false)
        } catch {
            output.abandon()
            throw sinkError ?? error
        }
        return written
    }
}
