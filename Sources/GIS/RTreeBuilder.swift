import Foundation

/// Builds the nodes of an SQLite R-tree virtual table in one pass (sort-tile-recursive packing),
/// for a layer written whole: inserting a million boxes one by one through the virtual table costs
/// about 16 µs each; packing them costs a sort.
///
/// The result is what SQLite's R*Tree keeps in its shadow tables (`_node`, `_rowid`, `_parent`):
/// node 1 is the root and starts with the tree's depth; every node is `nodeSize` bytes: a 2-byte
/// field (the depth, in the root), a 2-byte cell count, then cells of an 8-byte id (a row's id in
/// a leaf, a child's node number above) and four 4-byte floats (min x, max x, min y, max y), all
/// big-endian. Coordinates are rounded outwards to single precision, as SQLite rounds them, so a
/// box always holds its point.
struct RTreeBuilder {
    /// 20 bytes: a row's fid (or a node's number), its box in single precision.
    struct Entry {
        var id: UInt32
        var minX: Float, maxX: Float, minY: Float, maxY: Float
    }

    private(set) var entries: [Entry] = []
    /// Bytes of a node (the size SQLite gave the empty root when the table was created).
    let nodeSize: Int
    var cellsPerNode: Int { (nodeSize - 4) / 24 }

    init(nodeSize: Int) { self.nodeSize = nodeSize }

    /// The largest single-precision value not above `d`.
    static func down(_ d: Double) -> Float {
        let f = Float(d)
        return Double(f) > d ? f.nextDown : f
    }

    /// The smallest single-precision value not below `d`.
    static func up(_ d: Double) -> Float {
        let f = Float(d)
        return Double(f) < d ? f.nextUp : f
    }

    /// Makes room for `count` entries at once (growing by doubling would hold up to twice as many).
    mutating func reserve(_ count: Int) { entries.reserveCapacity(count) }

    /// Adds a row's point; fids beyond 2³² − 1 (four billion trees) are not expected.
    mutating func add(id: Int64, x: Double, y: Double) {
        let id = UInt32(clamping: id)
        entries.append(Entry(id: id, minX: Self.down(x), maxX: Self.up(x), minY: Self.down(y), maxY: Self.up(y)))
    }

    /// Packs the entries into nodes, level by level, and hands each node to `node` as it is
    /// finished, each row's leaf to `rowLeaf`, each node's parent to `parent`. Nothing for no
    /// entries (the empty root SQLite made stays). The entries are sorted where they are, not
    /// copied, and are gone afterwards.
    mutating func build(node: (Int64, [UInt8]) throws -> Void, rowLeaf: (Int64, Int64) throws -> Void,
                        parent: (Int64, Int64) throws -> Void) throws {
        guard !entries.isEmpty else { return }
        let capacity = cellsPerNode
        var level: [Entry] = []
        swap(&level, &entries)
        var depth = 0
        var nextNumber: Int64 = 2
        // Nodes of the level being built are numbered from 2 up; the last level's one node is the root, 1.
        while true {
            let groups = Self.tile(&level, capacity: capacity)
            let isRoot = groups.count == 1
            var above: [Entry] = []
            above.reserveCapacity(groups.count)
            for g in groups {
                let number: Int64 = isRoot ? 1 : nextNumber
                if !isRoot { nextNumber += 1 }
                var data = [UInt8](repeating: 0, count: nodeSize)
                if isRoot { Self.put16(UInt16(depth), &data, 0) }
                Self.put16(UInt16(g.count), &data, 2)
                var box = level[g.lowerBound]
                for (k, i) in g.enumerated() {
                    let e = level[i]
                    let at = 4 + 24 * k
                    Self.put64(UInt64(e.id), &data, at)
                    Self.put32(e.minX.bitPattern, &data, at + 8)
                    Self.put32(e.maxX.bitPattern, &data, at + 12)
                    Self.put32(e.minY.bitPattern, &data, at + 16)
                    Self.put32(e.maxY.bitPattern, &data, at + 20)
                    if depth == 0 { try rowLeaf(Int64(e.id), number) } else { try parent(Int64(e.id), number) }
                    box.minX = min(box.minX, e.minX); box.maxX = max(box.maxX, e.maxX)
                    box.minY = min(box.minY, e.minY); box.maxY = max(box.maxY, e.maxY)
                }
                try node(number, data)
                box.id = UInt32(number)
                above.append(box)
            }
            if isRoot { return }
            level = above
            depth += 1
        }
    }

    /// Sort-tile-recursive grouping: sorted by x into vertical slices, each slice sorted by y and
    /// cut into runs of `capacity`. Returns the index ranges of the groups (at least one).
    static func tile(_ level: inout [Entry], capacity: Int) -> [Range<Int>] {
        let n = level.count
        guard n > capacity else { return [0..<n] }
        let leaves = (n + capacity - 1) / capacity
        let slices = Int(Double(leaves).squareRoot().rounded(.up))
        let perSlice = slices * capacity
        level.sort { ($0.minX + $0.maxX) < ($1.minX + $1.maxX) }
        var groups: [Range<Int>] = []
        var start = 0
        while start < n {
            let end = min(n, start + perSlice)
            level[start..<end].sort { ($0.minY + $0.maxY) < ($1.minY + $1.maxY) }
            var g = start
            while g < end {
                groups.append(g..<min(end, g + capacity))
                g += capacity
            }
            start = end
        }
        return groups
    }

    private static func put16(_ v: UInt16, _ d: inout [UInt8], _ at: Int) {
        d[at] = UInt8(v >> 8); d[at + 1] = UInt8(v & 0xFF)
    }

    private static func put32(_ v: UInt32, _ d: inout [UInt8], _ at: Int) {
        for i in 0..<4 { d[at + i] = UInt8(truncatingIfNeeded: v >> (24 - 8 * i)) }
    }

    private static func put64(_ v: UInt64, _ d: inout [UInt8], _ at: Int) {
        for i in 0..<8 { d[at + i] = UInt8(truncatingIfNeeded: v >> (56 - 8 * i)) }
    }
}
