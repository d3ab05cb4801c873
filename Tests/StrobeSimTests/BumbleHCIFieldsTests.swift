import Foundation
import StrobeTestSupport
import Testing

import StrobeHCI

/// The one description of each HCI command and its return parameters, checked against a layout
/// someone else wrote: Google Bumble parses the bytes Strobe encodes, and every field both name
/// the same way (Bumble's snake_case of the Core Specification's names) must hold the same value.
/// A walk with two fields in the wrong order, a field of the wrong size or one missing fails
/// here, where the round trips through Strobe's own walkers cannot see it.
@Suite struct BumbleHCIFieldsTests {
    /// A field as compared: the Core Specification name in Bumble's spelling, and its value as
    /// a decimal number, an address or lower-case hex bytes.
    struct Field: Hashable, CustomStringConvertible {
        var name: String
        var value: String
        var description: String { "\(name)=\(value)" }
    }

    struct Packet {
        var what: String
        var bytes: [UInt8]
        var ours: [Field]
    }

    /// Each example command, and a Command Complete for each command that returns more than
    /// Status.
    static func packets() throws -> [Packet] {
        var packets: [Packet] = []
        for example in HCICommandDescriptionTests.examples {
            let opcode = type(of: example).opcode
            let packet = example.packet
            let described = try Array(packet.dropFirst(4)).withUnsafeBytes { bytes in
                try #require(HCICommandCatalog.fields(opcode: opcode.rawValue, parameters: bytes)).get()
            }
            packets.append(Packet(what: "\(opcode)", bytes: packet, ours: fields(described)))
        }
        for (command, returned) in HCICommandDescriptionTests.returnExamples {
            let returnParameters = [UInt8(0)] + returned.encodedParameters
            let event = HCIEvent.commandComplete(CommandCompleteEvent(numHCICommandPackets: 1, opcode: command.opcode,
                                                                      returnParameters: returnParameters))
            let described = try returnParameters.withUnsafeBytes { bytes in
                try #require(HCICommandCatalog.returnFields(opcode: command.opcode.rawValue, returnParameters: bytes)).get()
            }
            packets.append(Packet(what: "Command Complete for \(command.opcode)", bytes: [HCIPacketType.event.rawValue] + event.packet,
                                  ours: fields(described)))
        }
        return packets
    }

    /// Strobe's described fields as compared: list elements (`Name[0]`) and keys are left out.
    static func fields(_ described: [(name: String, value: String)]) -> [Field] {
        described.compactMap { field in
            guard !field.name.hasSuffix("]"), !field.value.hasSuffix("not shown)") else { return nil }
            let value: String
            if field.value.hasPrefix("0x"), let number = UInt64(field.value.dropFirst(2), radix: 16) {
                value = String(number)
            } else if field.value == "(empty)" {
                value = ""
            } else {
                value = field.value.contains(":") ? field.value.uppercased() : field.value.lowercased()
            }
            return Field(name: field.name.lowercased(), value: value)
        }
    }

    @Test func bumbleReadsEveryFieldAsStrobeDescribesIt() async throws {
        let packets = try Self.packets()
        let input = packets.map { $0.bytes.map { String(format: "%02x", $0) }.joined() }.joined(separator: "\n") + "\n"
        let lines = try await Self.bumble(input)
        try #require(lines.count == packets.count, "one answer per packet: \(lines)")
        var compared = 0
        for (packet, line) in zip(packets, lines) {
            let answer = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if let error = answer["error"] {
                Issue.record("\(packet.what): Bumble could not parse it: \(error)")
                continue
            }
            let theirs = try #require(answer["fields"] as? [[Any]]).compactMap { pair -> (name: String, values: [String])? in
                guard pair.count == 2, let name = pair[0] as? String else { return nil }
                // Bumble calls the Read Buffer Size fields HC_..., as Core 4.x did.
                let plain = name.hasPrefix("hc_") ? String(name.dropFirst(3)) : name
                return (plain, (pair[1] as? [Any])?.map(Self.text) ?? [Self.text(pair[1])])
            }
            // A field with one value per set or PHY is a list in Bumble, under the plural name;
            // Strobe names each element singly, in order.
            var shared: [Field] = []
            for (name, values) in theirs {
                let singular = name.hasSuffix("ies") ? name.dropLast(3) + "y" : name.hasSuffix("s") ? String(name.dropLast()) : name
                let ours = packet.ours.filter { $0.name == name || $0.name == singular }
                guard !ours.isEmpty else { continue }
                shared += ours
                if ours.count != values.count || zip(ours, values).contains(where: { !Self.same($0.value, $1) }) {
                    Issue.record("\(packet.what): \(name) is \(ours.map(\.value)) to Strobe, \(values) to Bumble")
                }
            }
            // Most fields are named alike: a description whose names drift from the spec's fails.
            #expect(shared.count * 2 >= packet.ours.count, "\(packet.what): only \(shared) of \(packet.ours) named as Bumble names them (\(theirs))")
            compared += shared.count
        }
        #expect(compared > 150, "fields compared: \(compared)")
    }

    /// The same value: equal, or Bumble's little-endian bytes of Strobe's number (masks and
    /// feature bits), or Bumble's signed octet of Strobe's (a TX power).
    static func same(_ ours: String, _ theirs: String) -> Bool {
        if ours == theirs { return true }
        guard let number = UInt64(ours) else { return false }
        if let signed = Int64(theirs), signed < 0 { return number == UInt64(signed + 256) }
        guard theirs.count.isMultiple(of: 2), theirs.count <= 16, let raw = UInt64(theirs, radix: 16) else { return false }
        return number == raw.byteSwapped >> UInt64(64 - theirs.count * 4)
    }

    static func text(_ value: Any) -> String {
        switch value {
        case let number as NSNumber: number.stringValue
        case let string as String: string.contains(":") ? string.uppercased() : string.lowercased()
        default: "\(value)"
        }
    }

    /// Bumble's answers, one line per packet.
    static func bumble(_ input: String) async throws -> [String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let python = ProcessInfo.processInfo.environment["STROBE_BUMBLE_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }
            ?? root.appendingPathComponent(".venv-bumble/bin/python").path
        let script = root.appendingPathComponent("Tests/Fixtures/Bumble/hci_fields.py").path
        let run = try await ChildProcess.run(URL(fileURLWithPath: python), [script], stdin: Data(input.utf8))
        let (status, output) = (run.status, run.stdout)
        try #require(status == 0, "hci_fields.py exited \(status)")
        return output.split(separator: "\n").map(String.init)
    }
}
