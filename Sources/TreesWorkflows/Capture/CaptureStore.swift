import TreesStore

/// The store a capture saves into, made only when the capture saves its first tree.
///
/// A capture that saves nothing (the source failed, no fix passed the gate, the user quit or
/// discarded) leaves no store and no folder where there was none, as every command refused before
/// it brings anything in does. Until then the capture reads what a store would give it (the last
/// collection, the remembered survey settings, the species known) as empty, and the settings it is
/// told to remember wait for the store.
public final class CaptureStore {
    /// The store, once there is one: from the start when it existed, else from the first save.
    public private(set) var store: TreeStore?
    private let make: () throws -> TreeStore
    /// Preferences to write when the store is made, in the order they were given.
    private var pending: [(key: PreferenceKey, value: String?)] = []

    /// A capture into a store that exists.
    public init(existing: TreeStore) {
        store = existing
        make = { existing }
    }

    /// A capture into the store `make` makes, called once, at the first save.
    public init(makingOnFirstSave make: @escaping () throws -> TreeStore) {
        store = nil
        self.make = make
    }

    /// The store to save into, made now if there is none yet (with the preferences waiting for it).
    public func forSaving() throws -> TreeStore {
        if let store { return store }
        let made = try make()
        for p in pending { try Self.remember(p.key, p.value, in: made) }
        pending = []
        store = made
        return made
    }

    /// A preference: the value waiting for the store, if one waits; else the store's (nil while
    /// there is no store).
    public func preference(_ key: PreferenceKey) throws -> String? {
        if let i = pending.lastIndex(where: { $0.key == key }) { return pending[i].value }
        return try store?.preference(key)
    }

    /// Stores a preference, writing only when it changes; kept for the store while there is none.
    public func remember(_ key: PreferenceKey, _ value: String?) throws {
        guard let store else {
            pending.append((key, value))
            return
        }
        try Self.remember(key, value, in: store)
    }

    private static func remember(_ key: PreferenceKey, _ value: String?, in store: TreeStore) throws {
        guard try store.preference(key) != value else { return }
        try store.write { try $0.setPreference(key, value) }
    }
}
