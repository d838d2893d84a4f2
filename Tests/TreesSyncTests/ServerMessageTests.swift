@testable import TreesSync
import Testing

/// libpq's messages come as several lines, hints indented with a tab; a message shown to the user
/// is one line without control characters.
@Suite struct ServerMessageTests {
    @Test func aMessageOfSeveralLinesIsOneLineWithoutTabs() {
        let text = "connection to server at \"127.0.0.1\", port 1 failed: Connection refused\n\tIs the server running on that host and accepting TCP/IP connections?\n"
        let message = text.withCString { PostgresConnection.message($0) }
        #expect(message == "connection to server at \"127.0.0.1\", port 1 failed: Connection refused; "
                + "Is the server running on that host and accepting TCP/IP connections?")
        #expect(PostgresConnection.message(nil) == "unknown error")
        #expect("  one line \n".withCString { PostgresConnection.message($0) } == "one line")
    }
}
