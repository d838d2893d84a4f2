import Foundation

/// A bounded hand-over of batches from one thread to another, in order: what reads a file to the
/// transaction that stores it, what reads the store to the writer of an export.
final class BatchQueue<Item: Sendable>: @unchecked Sendable {
    /// Items a producer hands over at a time: enough that the lock is taken rarely, few enough that
    /// the batches in flight (`capacity` queued, one being filled, one being used) stay small. 256
    /// imported trees take about 150 KB.
    static var batchSize: Int { 256 }
    /// Batches queued at most once the consumer has taken one.
    static var capacity: Int { 4 }
    /// Batches queued at most before the consumer takes its first: an import's store opens (or
    /// is made, about 10 ms) while its file is read ahead.
    static var startingCapacity: Int { 16 }
    /// Thrown by a producer whose consumer has given up.
    struct Cancelled: Error {}

    private let condition = NSCondition()
    private var batches: [[Item]] = []
    private var done = false
    private var failure: (any Error)?
    private var cancelled = false
    /// True once the consumer has taken a batch.
    private var taken = false

    /// Queues a batch, waiting while the queue is full; false once the consumer has given up.
    func put(_ batch: [Item]) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while batches.count >= (taken ? Self.capacity : Self.startingCapacity) && !cancelled { condition.wait() }
        guard !cancelled else { return false }
        batches.append(batch)
        condition.broadcast()
        return true
    }

    /// Marks the end of the input (with the producer's error, if any).
    func finish(_ error: (any Error)?) {
        condition.lock()
        done = true
        failure = error
        condition.broadcast()
        condition.unlock()
    }

    /// The next batch; nil at the end; rethrows the producer's error.
    func next() throws -> [Item]? {
        condition.lock()
        defer { condition.unlock() }
        while batches.isEmpty && !done { condition.wait() }
        if !batches.isEmpty {
            taken = true
            let b = batches.removeFirst()
            condition.broadcast()
            return b
        }
        if let failure, !(failure is Cancelled) { throw failure }
        return nil
    }

    /// Stops the producer (after a failure of the consumer, or at the end).
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }
}
