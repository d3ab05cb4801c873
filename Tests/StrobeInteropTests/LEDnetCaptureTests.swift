import Foundation
import StrobeLights
import Testing

/// The LEDnet codec against a real phone driving a Zengge "LEDBLE" strip
/// (`Captures/lgg6_zengge-ledstrip.btsnoop`), as tshark decodes its ATT traffic.
@Suite struct LEDnetCaptureTests {
    static let capture = RepositoryPaths.captures.appendingPathComponent("lgg6_zengge-ledstrip.btsnoop").path

    static func hex(_ text: Substring) -> [UInt8] {
        stride(from: 0, to: text.count - 1, by: 2).compactMap { offset in
            let start = text.index(text.startIndex, offsetBy: offset)
            return UInt8(text[start..<text.index(start, offsetBy: 2)], radix: 16)
        }
    }

    @Test func everyCommandThePhoneWroteIsReadAndEncodedBackToTheSameBytes() async throws {
        let writes = try await TSharkFrames.fields(Self.capture, ["btatt.value"], filter: "btatt.opcode == 0x52 && btatt.handle == 0x000b")
            .map { Self.hex(Substring($0)) }
        #expect(writes.count == 433)
        let commands = writes.compactMap { LEDnetCommand(bytes: $0) }
        // Everything but the phone's clock commands (10 ..., 12 1A 1B 21), which lights need no model of.
        let unread = writes.filter { LEDnetCommand(bytes: $0) == nil }
        #expect(unread.allSatisfy { $0.first == 0x10 || $0.first == 0x12 }, "\(unread)")
        #expect(commands.count == 430)
        #expect(zip(commands, writes.filter { LEDnetCommand(bytes: $0) != nil }).allSatisfy { $0.bytes == $1 })
        #expect(commands.contains(.color(red: 0x40, green: 0xE0, blue: 0xDF)))
        #expect(commands.filter { $0 == .queryState }.count == 3)
        #expect(Set(commands.compactMap { if case .power(let on) = $0 { on } else { nil } }) == [true, false])
    }

    @Test func everyStateTheStripNotifiedDecodes() async throws {
        let notifications = try await TSharkFrames.fields(Self.capture, ["btatt.value"], filter: "btatt.opcode == 0x1b && btatt.handle == 0x000e")
            .map { Self.hex(Substring($0)) }
            .filter { $0.first == 0x66 }
        #expect(notifications.count == 3)
        let states = try notifications.map { try LEDnetState(decoding: $0) }
        #expect(states.allSatisfy { $0.deviceType == 0x15 && $0.version == 0x0A })
        #expect(states.map(\.bytes) == notifications, "encoding a decoded state gives the strip's bytes back")
        // The first state in the protocol notes: 66 15 23 4A 41 02 14 E1 76 00 0A 99, on.
        #expect(states.contains(LEDnetState(power: true, red: 0x14, green: 0xE1, blue: 0x76, warmWhite: 0)))
    }
}
