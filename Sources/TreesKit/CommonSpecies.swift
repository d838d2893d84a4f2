/// Species suggested by the capture prompt before the store knows any: common orchard and street trees.
public enum CommonSpecies {
    public static let all = [
        "Apple", "Pear", "Plum", "Cherry", "Sour cherry", "Apricot", "Peach", "Nectarine", "Quince", "Medlar", "Fig",
        "Walnut", "Hazel", "Sweet chestnut", "Mulberry", "Damson", "Greengage", "Mirabelle", "Persimmon", "Olive",
        "Lemon", "Orange", "Oak", "Red oak", "Lime", "London plane", "Norway maple", "Field maple", "Sycamore",
        "Horse chestnut", "Ash", "Silver birch", "Hornbeam", "Beech", "Rowan", "Whitebeam", "Alder", "Willow",
        "Poplar", "Ginkgo", "Sweetgum", "Honey locust", "Robinia", "Pine", "Spruce", "Larch", "Yew", "Cedar",
    ]

    /// Suggestions: the store's species (most used first), then the built-in list, without case-insensitive repeats.
    public static func suggestions(known: [String]) -> [String] {
        var seen = Set<String>()
        var out: [String] = []
        for s in known + all where seen.insert(s.lowercased()).inserted { out.append(s) }
        return out
    }
}
