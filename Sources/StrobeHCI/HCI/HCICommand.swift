/// How the controller acknowledges a command (Core Specification Vol 4, Part E, 4.4).
package enum HCICommandCompletion: Sendable, Hashable {
    /// Command Complete carries the result and return parameters.
    case commandComplete
    /// Command Status says the command started; its outcome arrives later as its own event,
    /// through the controller's event observers.
    case commandStatus
}

/// One HCI command: its opcode, how it is acknowledged, and its parameters and the return
/// parameters of its Command Complete, each described once (`walkParameters`, which encodes,
/// decodes and shows them).
package protocol HCICommand: HCIParameters {
    /// What Command Complete returns after the Status octet; none for status-only commands and
    /// those answered by Command Status.
    associatedtype ReturnParameters: HCIParameters = HCINoReturnParameters

    static var opcode: HCIOpcode { get }
    static var completion: HCICommandCompletion { get }
}

extension HCICommand {
    package static var completion: HCICommandCompletion { .commandComplete }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {}

    /// Appends the command parameters (not the header).
    package func encodeParameters(into writer: inout ByteWriter) {
        var command = self
        var parameters = HCIParameterWriter(writer)
        command.walkParameters(&parameters)
        writer = parameters.writer
    }

    /// The command from its parameters (after the header), all of them: a short field, a byte
    /// left over or a value out of range is `HCIError.malformed`.
    package init(decodingParameters parameters: UnsafeRawBufferPointer) throws(HCIError) {
        try self.init(decoding: parameters, packet: Self.opcode.description)
    }

    /// Whether a parameter is a key (then a capture never shows the parameters raw).
    package static var carriesKey: Bool {
        var command = Self()
        var finder = HCIKeyFinder()
        command.walkParameters(&finder)
        return finder.foundKey
    }

    /// Appends the whole H4 command packet: type, opcode, parameter length, parameters.
    package func encodePacket(into writer: inout ByteWriter) {
        var parameters = ByteWriter(capacity: 32)
        encodeParameters(into: &parameters)
        writer.write(HCIPacketType.command.rawValue)
        writer.write(Self.opcode.rawValue)
        // Every command defined here has at most 255 parameter bytes (the largest is 33).
        writer.write(UInt8(truncatingIfNeeded: parameters.bytes.count))
        writer.write(contentsOf: parameters.bytes)
    }

    /// The whole H4 command packet.
    package var packet: [UInt8] {
        var writer = ByteWriter(capacity: 36)
        encodePacket(into: &writer)
        return writer.bytes
    }
}
