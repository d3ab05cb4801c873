import Foundation
import Strobe
import StrobeSim
import StrobeBase
import Synchronization
import Testing

/// The getting-started program that the README and the DocC catalog show: the same lines in
/// both, and they run against the simulated world (in virtual time) and do what they say.
@Suite struct GettingStartedTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func theProgramScansConnectsReadsSubscribesAndPairs() async throws {
        let printed = Lock<[String]>([])
        try await VirtualTimeDriver.run { clock in
            try await SimTransport.$environment.withValue(SimTransport.Environment(clock: clock)) {
                try await gettingStarted { line in printed.withLock { $0.append(line) } }
            }
        }
        #expect(printed.withLock { $0 } == ["battery 87 %", "100 notifications", "paired: unauthenticated"])
    }

    @Test(arguments: ["README.md", "Sources/Strobe/Strobe.docc/GettingStarted.md"])
    func theDocumentShowsTheProgramThatRuns(_ document: String) throws {
        let program = try Self.lines(of: "Tests/StrobeTests/GettingStarted.swift", between: "// BEGIN getting-started",
                                     and: "// END getting-started")
        let shown = try Self.lines(of: document, between: "<!-- getting-started -->", and: "```", skippingFirst: true)
        #expect(shown.filter { !$0.hasPrefix("import ") && !$0.isEmpty } == program)
        // Short, and naming few of the stack's types.
        #expect(program.count <= 15)
        let code = program.map { $0.replacing(/"[^"]*"/, with: "") }.joined(separator: " ")
        let typeNames = Set(code.matches(of: /\b[A-Z][A-Za-z0-9]+\b/).map { String($0.output) })
        #expect(typeNames.count <= 8, "\(typeNames.sorted())")
    }

    /// The lines between two markers (each line's indentation removed); with `skippingFirst`, the
    /// line after the start marker (a code fence) is left out.
    static func lines(of file: String, between start: String, and end: String, skippingFirst: Bool = false) throws -> [String] {
        let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
        let all = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        let first = try #require(all.firstIndex(of: start)) + (skippingFirst ? 2 : 1)
        let last = try #require(all[first...].firstIndex(of: end))
        return Array(all[first..<last])
    }
}
