import Foundation
import TreesKit
import TreesStore

/// What the user chose for a tree, before it is stored.
public struct CaptureChoices: Sendable {
    public var species: String
    public var variety: String?
    public var rootstock: String?
    public var notes: String?
    /// nil: no collection.
    public var collectionName: String?
    public var photos: [String]

    public init(species: String, variety: String?, rootstock: String?, notes: String?, collectionName: String?, photos: [String]) {
        self.species = species
        self.variety = variety
        self.rootstock = rootstock
        self.notes = notes
        self.collectionName = collectionName
        self.photos = photos
    }
}

/// Stores a frozen fix as a new tree, or as the new position of an existing one, in one transaction.
public struct CaptureSaver: Sendable {
    public let store: TreeStore
    /// The location source, recorded with the tree (`CaptureInfo.locationSource`).
    public let sourceDescription: String
    /// Save even when a tree of the same species lies within the accuracy circle.
    public let allowDuplicate: Bool
    /// Height of the antenna above the ground (metres), subtracted from the fix's altitude and
    /// ellipsoid height and recorded with the tree; nil or 0 when the receiver sits on the ground.
    public var antennaHeight: Double?
    /// Problems with photo files that did not stop the save (a date that could not be used).
    public var onWarning: @Sendable (String) -> Void = { _ in }

    public init(store: TreeStore, sourceDescription: String, allowDuplicate: Bool) {
        self.store = store
        self.sourceDescription = sourceDescription
        self.allowDuplicate = allowDuplicate
    }

    /// A tree of the same species within the larger of the two accuracies.
    public struct Duplicate: Sendable, Equatable {
        public var tree: Tree
        public var distance: Double
        public var radius: Double
        public var message: String {
            String(format: "possible duplicate: tree %@ (%@) lies %.1f m away, within the %.1f m accuracy",
                   tree.shortID, tree.species, distance, radius)
        }
    }

    public func duplicates(of frozen: FrozenFix, species: String, excluding: UUID?) throws -> [Duplicate] {
        try store.read { r in
            try r.trees(species: species, near: frozen.coordinate, within: max(frozen.horizontalAccuracy, 500))
                .filter { $0.id != excluding }
                .compactMap { t in
                    let d = Geodesy.distance(t.coordinate, frozen.coordinate)
                    let radius = max(frozen.horizontalAccuracy, t.horizontalAccuracy ?? 0)
                    return d <= radius ? Duplicate(tree: t, distance: d, radius: radius) : nil
                }
                .sorted { $0.distance < $1.distance }
        }
    }

    /// Saves `frozen` as a new tree, or as the new position of `existing`; a possible duplicate
    /// is saved only when `confirmDuplicate` says so (else `WorkflowError.possibleDuplicate`).
    /// Fails with a `WorkflowError`.
    public func save(_ frozen: FrozenFix, choices: CaptureChoices, existing: Tree?, confirmDuplicate: (Duplicate) -> Bool) throws -> Tree {
        do {
            return try saveOrThrow(frozen, choices: choices, existing: existing, confirmDuplicate: confirmDuplicate)
        } catch StoreError.photo(let e) {
            throw WorkflowError.photo(e)
        } catch let e as StoreError {
            throw WorkflowError.store(e, nothingStored: false)
        }
    }

    private func saveOrThrow(_ frozen: FrozenFix, choices: CaptureChoices, existing: Tree?, confirmDuplicate: (Duplicate) -> Bool) throws -> Tree {
        if !allowDuplicate, let dup = try duplicates(of: frozen, species: choices.species, excluding: existing?.id).first,
           !confirmDuplicate(dup) {
            throw WorkflowError.possibleDuplicate(dup)
        }
        let fix = frozen.fix
        let capture = CaptureInfo(fixTime: fix.time, fixMode: fix.mode, satellites: fix.satellitesUsed, hdop: fix.hdop,
                                  averagedEpochs: frozen.epochs, locationSource: sourceDescription,
                                  fixStatus: fix.mode.hasPosition ? fix.status : nil, correctionAge: fix.correctionAge,
                                  verticalAccuracy: fix.verticalAccuracy, verticalAccuracySource: fix.verticalAccuracySource,
                                  antennaHeight: antennaHeight)
        let pole = antennaHeight ?? 0
        let ellipsoid = (fix.ellipsoidHeight ?? fix.altitudeMSL.flatMap { alt in fix.geoidSeparation.map { alt + $0 } }).map { $0 - pole }
        // Photo files are copied and hashed before the store is locked; the transaction records rows only.
        var photos: PhotoLibrary.StagedPhotos?
        if !choices.photos.isEmpty {
            let staged = try store.photoLibrary.stage(files: choices.photos)
            for warning in staged.warnings { onWarning(warning) }
            photos = staged
        }
        do {
            return try save(frozen, choices: choices, existing: existing, capture: capture, ellipsoid: ellipsoid, photos: photos)
        } catch {
            if let photos { store.photoLibrary.discard(photos, store: store) }
            throw error
        }
    }

    private func save(_ frozen: FrozenFix, choices: CaptureChoices, existing: Tree?, capture: CaptureInfo, ellipsoid: Double?,
                      photos: PhotoLibrary.StagedPhotos?) throws -> Tree {
        let fix = frozen.fix
        return try store.write { w -> Tree in
            let collection = try choices.collectionName.map { try w.collection(namedOrNew: $0) }
            var tree: Tree
            if var t = existing {
                try w.recordHistory(of: t, change: "re-captured")
                t.coordinate = frozen.coordinate
                t.horizontalAccuracy = frozen.horizontalAccuracy
                t.accuracySource = frozen.accuracySource
                t.altitude = fix.altitudeMSL.map { $0 - (antennaHeight ?? 0) }
                t.ellipsoidHeight = ellipsoid
                t.capture = capture
                tree = try w.update(t)
            } else {
                tree = Tree(coordinate: frozen.coordinate, horizontalAccuracy: frozen.horizontalAccuracy,
                            accuracySource: frozen.accuracySource, altitude: fix.altitudeMSL.map { $0 - (antennaHeight ?? 0) },
                            ellipsoidHeight: ellipsoid,
                            species: choices.species, variety: choices.variety, rootstock: choices.rootstock,
                            notes: choices.notes, collectionID: collection?.id, createdAt: w.now, capture: capture)
                try w.insert(tree)
                try w.setPreference(.lastCollection, collection?.id.lowercaseText)
            }
            if let photos { _ = try store.photoLibrary.attach(photos, to: tree.id, in: w) }
            return tree
        }
    }
}

/// Defaults that capture shares between its scripted and interactive forms.
public enum CaptureDefaults {
    /// `--collection NAME` (created on save when new), `none`, or else the last used collection.
    public static func collectionName(_ option: String?, in target: CaptureStore) throws -> String? {
        if let option {
            let trimmed = option.trimmingCharacters(in: .whitespaces)
            return TreeCollection.meansNone(trimmed) || trimmed.isEmpty ? nil : trimmed
        }
        guard let store = target.store,
              let id = try store.preference(.lastCollection).flatMap(UUID.init(uuidString:)) else { return nil }
        return try store.read { try $0.collection(id: id) }?.name
    }

    /// The antenna heights capture accepts, in metres: from the ground up to a tall survey pole.
    public static let antennaHeights = 0.0...10.0

    /// `--require-fix dgps|rtk-float|rtk-fixed` (remembered by the store) or `any` (forgets it);
    /// without the option, the remembered one.
    public static func requiredFix(_ option: String?, in target: CaptureStore) throws -> RequiredFix? {
        if let option {
            let value = option.trimmingCharacters(in: .whitespaces).lowercased()
            let required = value == "any" ? nil : RequiredFix(rawValue: value)
            try target.remember(.requireFix, required?.rawValue)
            return required
        }
        return try target.preference(.requireFix).flatMap(RequiredFix.init(rawValue:))
    }

    /// `--antenna-height M` (remembered by the store; 0 forgets it); without the option, the
    /// remembered one. A remembered value outside `antennaHeights` (a store edited by hand) is
    /// ignored.
    public static func antennaHeight(_ option: Double?, in target: CaptureStore) throws -> Double? {
        if let option {
            let height = option == 0 ? nil : option
            try target.remember(.antennaHeight, height.map { String($0) })
            return height
        }
        guard let text = try target.preference(.antennaHeight), let h = Double(text), antennaHeights.contains(h), h != 0 else { return nil }
        return h
    }
}
