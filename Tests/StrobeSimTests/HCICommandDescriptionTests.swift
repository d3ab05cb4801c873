import Foundation
import Synchronization
import Testing

@testable import StrobeCapture
@testable import StrobeHCI
@testable import StrobeSim

/// Every HCI command the stack sends, from its one description (`walkParameters`), through the
/// encoder, the decoder, a capture and the simulated controller.
@Suite struct HCICommandDescriptionTests {
    static let key: [UInt8] = Array(0xA0...0xAF)
    static let peer = BluetoothAddress("C4:5E:00:00:00:09")!
    static let connection = LEConnectionParameters(intervalMin: 0x0018, intervalMax: 0x0028, maxLatency: 0x0002,
                                                   supervisionTimeout: 0x01F4, minCELength: 0x0003, maxCELength: 0x0004)

    /// One command of each kind, with values a field mix-up would change.
    static let examples: [any HCICommand] = [
        HCIReset(), HCISetEventMask(mask: 0x3DBF_F807_FFFB_FFFF), HCIReadLocalVersionInformation(), HCIReadBDAddr(),
        HCIReadLocalSupportedCommands(), HCIReadLocalSupportedFeatures(), HCIReadBufferSize(),
        HCILESetEventMask(mask: 0x0000_0000_0007_FFFF), HCILEReadLocalSupportedFeatures(), HCILEReadBufferSizeV1(),
        HCILEReadBufferSizeV2(),
        HCILESetAdvertisingParameters(intervalMin: 0x00A0, intervalMax: 0x00B0, advertisingType: .scannableUndirected,
                                      ownAddressType: .random, peerAddressType: .random, peerAddress: peer, channelMap: 0x05,
                                      filterPolicy: 0x01),
        HCILESetAdvertisingData(data: [0x02, 0x01, 0x06, 0x05, 0x09, 0x4E, 0x6F, 0x76, 0x61])!,
        HCILESetScanResponseData(data: [0x03, 0x03, 0x0F, 0x18])!,
        HCILESetAdvertisingEnable(enable: true), HCILESetRandomAddress(address: peer),
        HCILESetExtendedAdvertisingParameters(advertisingHandle: 1, properties: [.connectable, .scannable], intervalMin: 0x0100A0,
                                              intervalMax: 0x0200B0, channelMap: 0x06, ownAddressType: .random,
                                              peerAddressType: .random, peerAddress: peer, filterPolicy: 0x02, txPower: -4,
                                              primaryPHY: 0x03, secondaryMaxSkip: 1, secondaryPHY: 0x02, advertisingSID: 5,
                                              scanRequestNotification: true),
        HCILESetExtendedAdvertisingData(advertisingHandle: 1, data: Array(0x10...0x30))!,
        HCILESetExtendedScanResponseData(advertisingHandle: 2, data: [0x03, 0x03, 0x0F, 0x18])!,
        HCILESetExtendedAdvertisingEnable(enable: true, advertisingHandle: 3),
        HCILESetAdvertisingSetRandomAddress(advertisingHandle: 2, address: peer),
        HCILESetScanParameters(scanType: .active, scanInterval: 0x0060, scanWindow: 0x0030, ownAddressType: .random,
                               scanningFilterPolicy: 0x01),
        HCILESetScanEnable(enable: true, filterDuplicates: true),
        HCILESetExtendedScanParameters(ownAddressType: .random, scanningFilterPolicy: 0x01,
                                       le1M: .init(scanType: .active, scanInterval: 0x0060, scanWindow: 0x0030),
                                       leCoded: .init(scanType: .passive, scanInterval: 0x0120, scanWindow: 0x0090)),
        HCILESetExtendedScanEnable(enable: true, filterDuplicates: 2, duration: 0x0064, period: 0x0003),
        HCILECreateConnection(scanInterval: 0x0060, scanWindow: 0x0030, initiatorFilterPolicy: 0, peerAddressType: .random,
                              peerAddress: peer, ownAddressType: .random, connection: connection),
        HCILEExtendedCreateConnection(ownAddressType: .random, peerAddressType: .random, peerAddress: peer,
                                      le1M: .init(scanInterval: 0x0060, scanWindow: 0x0030, connection: connection),
                                      leCoded: .init(scanInterval: 0x0120, scanWindow: 0x0090, connection: connection)),
        HCILECreateConnectionCancel(), HCIDisconnect(connectionHandle: 0x0041, reason: .authenticationFailure),
        HCILEConnectionUpdate(connectionHandle: 0x0042, connection: connection),
        HCILERemoteConnectionParameterRequestReply(connectionHandle: 0x0043, connection: connection),
        HCILERemoteConnectionParameterRequestNegativeReply(connectionHandle: 0x0044, reason: .unacceptableConnectionParameters),
        HCILESetDataLength(connectionHandle: 0x0045, txOctets: 251, txTime: 2120),
        HCILESetPHY(connectionHandle: 0x0046, allPHYs: 0x01, txPHYs: [.le2M], rxPHYs: [.le1M, .le2M], phyOptions: 0x0001),
        HCILEReadPHY(connectionHandle: 0x0047), HCILEReadRemoteFeatures(connectionHandle: 0x0048),
        HCIReadRemoteVersionInformation(connectionHandle: 0x0049),
        HCILEEnableEncryption(connectionHandle: 0x004A, random: 0xA0A1_A2A3_A4A5_A6A7, encryptedDiversifier: 0xB1B2, longTermKey: key),
        HCILELongTermKeyRequestReply(connectionHandle: 0x004B, longTermKey: key),
        HCILELongTermKeyRequestNegativeReply(connectionHandle: 0x004C),
    ]

    /// What the simulated controller does not implement (it has no extended advertising,
    /// scanning or initiating, data length or PHY features), so answers Unknown HCI Command.
    static let notSimulated: Set<HCIOpcode> = [
        HCILEReadBufferSizeV2.opcode, HCILESetExtendedAdvertisingParameters.opcode, HCILESetExtendedAdvertisingData.opcode,
        HCILESetExtendedScanResponseData.opcode, HCILESetExtendedAdvertisingEnable.opcode,
        HCILESetAdvertisingSetRandomAddress.opcode, HCILESetExtendedScanParameters.opcode, HCILESetExtendedScanEnable.opcode,
        HCILEExtendedCreateConnection.opcode, HCILESetDataLength.opcode, HCILESetPHY.opcode, HCILEReadPHY.opcode,
        HCILEReadRemoteFeatures.opcode, HCIReadRemoteVersionInformation.opcode,
    ]

    @Test func theExamplesAreTheCatalog() {
        let opcodes = Self.examples.map { type(of: $0).opcode.rawValue }
        #expect(Set(opcodes).count == opcodes.count, "one example per command")
        #expect(Set(opcodes) == Set(HCICommandCatalog.commands.map { $0.opcode.rawValue }))
    }

    @Test func eachCommandDecodesToWhatWasEncoded() throws {
        for example in Self.examples { try Self.roundTrip(example) }
    }

    static func roundTrip<C: HCICommand>(_ command: C) throws {
        let packet = command.packet
        #expect(packet[0] == HCIPacketType.command.rawValue)
        #expect(UInt16(packet[1]) | UInt16(packet[2]) << 8 == C.opcode.rawValue)
        #expect(Int(packet[3]) == packet.count - 4)
        let parameters = Array(packet[4...])
        let decoded = try parameters.withUnsafeBytes { bytes throws(HCIError) in try C(decodingParameters: bytes) }
        #expect(decoded == command, "\(C.opcode)")
        // One byte short, or one left over, is malformed, not read past or ignored.
        guard !parameters.isEmpty else { return }
        #expect(throws: HCIError.self) { _ = try Array(parameters.dropLast()).withUnsafeBytes { bytes throws(HCIError) in try C(decodingParameters: bytes) } }
        #expect(throws: HCIError.self) { _ = try (parameters + [0]).withUnsafeBytes { bytes throws(HCIError) in try C(decodingParameters: bytes) } }
    }

    /// Each command in a capture shows its fields under the names its description gives, in
    /// order, and never a key's bytes.
    @Test func aCaptureShowsEachCommandByItsFields() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hci-commands-\(UUID().uuidString).btsnoop").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try BtsnoopWriter(path: path)
        let at = BtsnoopTimestamp(unixMicroseconds: 1_700_000_000_000_000)
        for example in Self.examples {
            try writer.write(.command, direction: .hostToController, payload: Array(example.packet.dropFirst()), at: at)
        }
        // A Long Term Key Request Reply one byte short: malformed, and its bytes not shown.
        try writer.write(.command, direction: .hostToController,
                         payload: Array(HCILELongTermKeyRequestReply(connectionHandle: 0x40, longTermKey: Self.key).packet.dropFirst().dropLast()),
                         at: at)
        try writer.close()
        let decoder = try CaptureRecordDecoder(path: path)
        let keyText = Self.key.map { String(format: "%02x", $0) }.joined()
        for example in Self.examples {
            let record = try #require(try decoder.next())
            let layer = try #require(record.layers.last)
            let opcode = type(of: example).opcode
            #expect(record.hciOpcode == opcode.rawValue)
            #expect(layer.fields.map(\.name) == Self.fieldNames(example), "\(opcode)")
            #expect(!layer.fields.contains { $0.name == "parameters" || $0.name == "malformed" }, "\(opcode)")
            #expect(!record.text.lowercased().contains(keyText), "\(opcode)")
        }
        let short = try #require(try decoder.next())
        let layer = try #require(short.layers.last)
        #expect(layer.fields.map(\.name) == ["malformed"])
        #expect(!short.text.lowercased().contains(keyText.prefix(8)))
    }

    static func fieldNames<C: HCICommand>(_ command: C) -> [String] {
        var copy = command
        var walker = HCIFieldNames()
        copy.walkParameters(&walker)
        return walker.names
    }

    /// The simulated controller takes each command it implements through the same description
    /// (none counted malformed), and says Unknown HCI Command to the others.
    @Test func theSimulatedControllerTakesEachCommandByItsDescription() async {
        await #expect(processExitsWith: .success) { try await VirtualTimeDriver.run(Self.theSimulatedControllerTakesEachCommandByItsDescription) }
    }

    static func theSimulatedControllerTakesEachCommandByItsDescription(_ clock: VirtualClock) async throws {
        let world = SimWorld(scenario: SimScenario(devices: []), clock: clock)
        let controller = world.makeHostController()
        let sink = AnswerSink()
        try controller.start(sink)
        for example in Self.examples {
            let opcode = type(of: example).opcode
            try example.packet.withUnsafeBytes { try controller.send($0) }
            await controller.flush()
            let status = try #require(sink.answers.withLock { $0[opcode] }, "\(opcode) unanswered")
            if Self.notSimulated.contains(opcode) {
                #expect(status == .unknownHCICommand, "\(opcode)")
            } else {
                // Its own rules may refuse it (a random address while advertising): not its parameters.
                #expect(status != .unknownHCICommand, "\(opcode)")
                #expect(world.air.counters.malformedCommands == 0, "\(opcode): \(status)")
            }
        }
        // One byte short: Invalid HCI Command Parameters, counted.
        var short = Array(HCIDisconnect(connectionHandle: 0x40).packet.dropLast())
        short[3] -= 1
        try short.withUnsafeBytes { try controller.send($0) }
        await controller.flush()
        #expect(sink.answers.withLock { $0[.disconnect] } == .invalidHCICommandParameters)
        #expect(world.air.counters.malformedCommands == 1)
        controller.close()
    }

    /// The status of each command's Command Complete or Command Status.
    final class AnswerSink: HCIPacketSink {
        let answers = Mutex<[HCIOpcode: HCIStatus]>([:])
        func transportDidReceive(_ type: HCIPacketType, payload: UnsafeRawBufferPointer, at time: HostTime) {
            guard type == .event, let event = try? HCIEvent(packet: payload) else { return }
            switch event {
            case .commandStatus(let status): answers.withLock { $0[status.opcode] = status.status }
            case .commandComplete(let complete):
                answers.withLock { $0[complete.opcode] = complete.returnParameters.first.map(HCIStatus.init(rawValue:)) ?? .success }
            default: break
            }
        }
        func transportDidFinishBatch() {}
        func transportDidClose(_ error: TransportError?) {}
    }
}

/// The names a walk passes, as a capture should show them.
struct HCIFieldNames: HCIParameterWalker {
    typealias Failure = Never
    var names: [String] = []
    mutating func field<Value: HCIFieldValue>(_ name: String, _ value: inout Value) { names.append(name) }
    mutating func uint24(_ name: String, _ value: inout UInt32) { names.append(name) }
    mutating func key(_ name: String, _ value: inout [UInt8]) { names.append(name) }
    mutating func data(_ name: String, _ value: inout [UInt8], maximum: Int?, padded: Bool) { names += ["\(name)_Length", name] }
    mutating func constant<Value: HCIFieldValue & Equatable>(_ name: String, _ value: Value) { names.append(name) }
    mutating func rest(_ name: String, _ value: inout [UInt8]) { names.append(name) }
    mutating func list<Element: HCIParameters>(_ countName: String, _ elements: inout [Element]) {
        names.append(countName)
        for index in elements.indices {
            var element = elements[index]
            var inner = HCIFieldNames()
            element.walkParameters(&inner)
            names += inner.names.map { "\($0)[\(index)]" }
        }
    }
}
