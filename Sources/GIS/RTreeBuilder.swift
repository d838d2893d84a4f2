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
package struct RTreeBuilder {
    /// 20 bytes: a row's fid (or a node's number), its box in single precision.
    package struct Entry: Equatable {
        package var id: UInt32
        package var minX: Float, maxX: Float, minY: Float, maxY: Float
    }

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

    /// A row's point; fids beyond 2³² − 1 (four billion trees) are not expected.
    package static func entry(id: Int64, x: Double, y: Double) -> Entry {
        Entry(id: UInt32(clamping: id), minX: down(x), maxX: up(x), minY: down(y), maxY: up(y))
    }

    /// Packs the entries `next` hands over, in order of x, into nodes, level by level, and hands
    /// each node to `node` as it is finished, each row's leaf to `rowLeaf`, each node's parent to
    /// `parent`. `count` is how many entries there are, which sets the slices' width (a wrong
    /// count makes a tree as valid, only less compact). Nothing for no entries (the empty root
    /// SQLite made stays).
    ///
    /// The leaves are made one vertical slice at a time, so what is held is a slice's entries
    /// (about √(count × cellsPerNode): 7,000 for a million) and a box for each leaf, not every
    /// entry: all of them at once took a million trees' export from 49 to 73 MB.
    func build(count: Int, sortedByX next: () throws -> Entry?, node: (Int64, [UInt8]) throws -> Void,
               rowLeaf: (Int64, Int64) throws -> Void, parent: (Int64, Int64) throws -> Void) throws {
        let capacity = cellsPerNode
        var nextNumber: Int64 = 2
        // Nodes are numbered from 2 up, the leaves first; the last level's one node is the root, 1.
        func pack(_ cells: ArraySlice<Entry>, depth: Int, isRoot: Bool) throws -> Entry {
            let number: Int64 = isRoot ? 1 : nextNumber
            if !isRoot { nextNumber += 1 }
            var data = [UInt8](repeating: 0, count: nodeSize)
            if isRoot { Self.put16(UInt16(depth), &data, 0) }
            Self.put16(UInt16(cells.count), &data, 2)
            var box = cells[cells.startIndex]
            for (k, e) in cells.enumerated() {
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
            return box
        }
        // The leaves: each slice of entries in order of x is sorted by y and cut into nodes.
        let leaves = max(1, (count + capacity - 1) / capacity)
        let perSlice = Int(Double(leaves).squareRoot().rounded(.up)) * capacity
        var slice: [Entry] = []
        slice.reserveCapacity(min(perSlice, max(count, capacity)))
        var level: [Entry] = []
        level.reserveCapacity(leaves)
        var pending = try next()
        while pending != nil {
            slice.removeAll(keepingCapacity: true)
            while slice.count < perSlice, let e = pending {
                slice.append(e)
                pending = try next()
            }
            slice.sort { ($0.minY + $0.maxY) < ($1.minY + $1.maxY) }
            if level.isEmpty, pending == nil, slice.count <= capacity {
                _ = try pack(slice[...], depth: 0, isRoot: true)
                return
            }
            var g = 0
            while g < slice.count {
                level.append(try pack(slice[g..<min(slice.count, g + capacity)], depth: 0, isRoot: false))
                g += capacity
            }
        }
        guard !level.isEmpty else { return }
        // The levels above, from the leaves' boxes (one for every `capacity` entries), in memory.
        var depth = 1
        while true {
            let groups = Self.tile(&level, capacity: capacity)
            let isRoot = groups.count == 1
            var above: [Entry] = []
            above.reserveCapacity(groups.count)
            for g in groups { above.append(try pack(level[g], depth: depth, isRoot: isRoot)) }
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
