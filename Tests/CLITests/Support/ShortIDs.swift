/// The short id listings show for an id typed or read from JSON: its first eight hex digits, or
/// its last eight when it is time-ordered (a version-7 id: a `7` opens its third group).
func shortID(_ id: String) -> String {
    let text = id.lowercased()
    let version = text.dropFirst(14).first
    return version == "7" ? String(text.suffix(8)) : String(text.prefix(8))
}
