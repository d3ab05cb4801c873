import Logging
import StrobeBase
import Synchronization
import Testing
import StrobeHCI

/// What the controller reports through the app's `Logger`: drops and failures with what was
/// wrong, nothing by default.
@Suite struct ControllerLoggingTests {
    /// Keeps every record it is given.
    final class Records: Sendable {
        struct Record: Sendable {
            var level: Logger.Level
            var message: String
            var metadata: [String: String]
        }
        private let storage = Lock<[Record]>([])
        var all: [Record] { storage.withLock { $0 } }
        func append(_ record: Record) { storage.withLock { $0.append(record) } }

        var logger: Logger {
            var logger = Logger(label: "test") { _ in Handler(records: self) }
            logger.logLevel = .trace
            return logger
        }

        struct Handler: LogHandler {
            let records: Records
            var metadata: Logger.Metadata = [:]
            var logLevel: Logger.Level = .trace
            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }
            func log(event: LogEvent) {
                records.append(Record(level: event.level, message: "\(event.message)",
                                      metadata: (event.metadata ?? [:]).mapValues { "\($0)" }))
            }
        }
    }

    @Test func dropsAndTheCloseCauseAreLoggedWithWhatWasWrong() async throws {
        let records = Records()
        let (controller, transport) = try await openController(configuration: .init(logger: records.logger))
        #expect(records.all.map(\.message) == ["controller open"])

        transport.deliver(bytes("04 13 05 02 01 00 01 00"))
        let malformed = try #require(records.all.last)
        #expect(malformed.level == .warning)
        #expect(malformed.message == "malformed event dropped")
        #expect(malformed.metadata["error"] == "malformed Number Of Completed Packets: 2 handles need 8 bytes, 4 left")

        transport.fail(.unknownPacketType(0x09, offset: 77))
        let closed = try #require(records.all.last)
        #expect(closed.level == .error)
        #expect(closed.message == "controller closed")
        #expect(closed.metadata["cause"] == "the H4 stream lost its framing at byte 77: 0x09 is no H4 packet type")
        #expect(controller.closeError == .closed(.unknownPacketType(0x09, offset: 77)))
    }

    @Test func theDefaultLoggerIsQuiet() {
        #expect(HCIController.Configuration().logger.logLevel == .critical)
        #expect(HCIController.Configuration().logger.handler is SwiftLogNoOpLogHandler)
    }
}
