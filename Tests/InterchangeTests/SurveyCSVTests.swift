import Foundation
import Interchange
import Testing
import TreesKit
import TreesTestSupport

/// Surveyors' CSV layouts: the separator told from the first line, decimal commas, grid columns
/// handed to the caller's transform, in any chunking.
@Suite struct SurveyCSVTests {
    func read(_ pieces: [ArraySlice<UInt8>], transform: ((Double, Double) -> Result<Coordinate, CSVPositionProblem>)? = nil,
              overrides: [String: String] = [:]) throws -> [ImportedTree] {
        var reader = CSVTreeReader()
        reader.transform = transform
        reader.columnOverrides = overrides
        var trees: [ImportedTree] = []
        for piece in pieces { try reader.read(piece) { trees.append($0) } }
        try reader.finish { trees.append($0) }
        return trees
    }

    /// Excel's first line `sep=;` names the separator; the header and rows follow, their lines
    /// counted from the file's first, in any chunking.
    @Test(arguments: ["\r\n", "\n", "\r"])
    func anExcelSeparatorLineIsReadAsTheSeparator(end: String) throws {
        let text = "\u{FEFF}sep=;\(end)Spp;Lat;Lon\(end)Malus;47,5;8,25\(end)Pyrus;-1,5;-2\(end)"
        let trees = try ChunkingVerifier.standard.verify(text) { try read($0) }
        #expect(trees.map(\.species) == ["Malus", "Pyrus"])
        #expect(trees.map(\.coordinate) == [Coordinate(latitude: 47.5, longitude: 8.25), Coordinate(latitude: -1.5, longitude: -2)])
        #expect(trees.map(\.line) == [3, 4])
    }

    @Test func semicolonsAndDecimalCommasInAnyChunking() throws {
        // A quoted header name holding a line break and commas: the separator is still ';'.
        let text = "\u{FEFF}Spp;Lat;Lon;Comment;\"Plot\n(a, b, c, d)\"\nMalus domestica;47,5;8,25;\"a, b; c\";1\nPyrus;-1,5;-2;;2\n"
        let trees = try ChunkingVerifier.standard.verify(text) { try read($0) }
        #expect(trees.map(\.species) == ["Malus domestica", "Pyrus"])
        #expect(trees.map(\.coordinate) == [Coordinate(latitude: 47.5, longitude: 8.25), Coordinate(latitude: -1.5, longitude: -2)])
        #expect(trees[0].notes == "a, b; c")
        #expect(trees.map(\.line) == [3, 4])
    }

    @Test func tabsAndGridColumnsGoThroughTheTransform() throws {
        let text = "Point\tSpp\tE\tN\n7\tOak\t1000,5\t2000\n"
        var seen: [(Double, Double)] = []
        let trees = try read([Array(text.utf8)[...]], transform: { x, y in
            seen.append((x, y))
            return .success(Coordinate(latitude: y / 100, longitude: x / 100))
        })
        #expect(seen.count == 1 && seen[0] == (1000.5, 2000))
        #expect(trees[0].coordinate == Coordinate(latitude: 20, longitude: 10.005))
        #expect(trees[0].notes == "point 7")
    }

    @Test func refusals() throws {
        let outside: (Double, Double) -> Result<Coordinate, CSVPositionProblem> = { _, _ in .failure(.init(reason: "outside")) }
        #expect(throws: InterchangeError.invalidCSV(line: 2, reason: "outside")) {
            try read([Array("species,x,y\nOak,1,2\n".utf8)[...]], transform: outside)
        }
        #expect(throws: InterchangeError.invalidCSV(line: 3, reason: "this line is separated by tab but the header by ';' (mixed separators)")) {
            try read([Array("species;lat;lon\nOak;1;2\nAsh\t1\t2\n".utf8)[...]])
        }
        #expect(throws: InterchangeError.invalidCSV(line: 1, reason: "--columns species=Tree: no column Tree (columns: Spp, lat, lon)")) {
            try read([Array("Spp,lat,lon\nOak,1,2\n".utf8)[...]], overrides: ["species": "Tree"])
        }
    }
}
