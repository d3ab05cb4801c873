import StrobeHCI
import Testing

import StrobeHost

@Suite struct LESignalingTests {
    @Test func parsesAndEncodesACommand() throws {
        let bytes: [UInt8] = [0x12, 0x07, 0x08, 0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0x90, 0x01]
        let packet = try bytes.withUnsafeBytes { try LESignalingPacket(parsing: $0) }
        #expect(packet.code == 0x12 && packet.identifier == 7 && packet.data.count == 8)
        #expect(packet.encoded == bytes)
        let request = try ConnectionParameterUpdateRequest(data: packet.data)
        #expect(request == ConnectionParameterUpdateRequest(intervalMin: 0x18, intervalMax: 0x28, latency: 0, timeout: 0x190))
        #expect(request.isAcceptable)
        #expect(ConnectionParameterUpdateRequest.response(identifier: 7, accepted: true).encoded == [0x13, 0x07, 0x02, 0x00, 0x00, 0x00])
        #expect(ConnectionParameterUpdateRequest.response(identifier: 7, accepted: false).encoded == [0x13, 0x07, 0x02, 0x00, 0x01, 0x00])
    }

    @Test func malformedCommandsAreTypedErrors() {
        #expect(throws: L2CAPSignalingError.truncated(length: 3)) {
            try [UInt8(0x12), 0x01, 0x08].withUnsafeBytes { try LESignalingPacket(parsing: $0) }
        }
        #expect(throws: L2CAPSignalingError.lengthMismatch(code: 0x12, announced: 8, actual: 2)) {
            try [UInt8(0x12), 0x01, 0x08, 0x00, 0x01, 0x02].withUnsafeBytes { try LESignalingPacket(parsing: $0) }
        }
        #expect(throws: L2CAPSignalingError.zeroIdentifier(code: 0x12)) {
            try [UInt8(0x12), 0x00, 0x00, 0x00].withUnsafeBytes { try LESignalingPacket(parsing: $0) }
        }
        #expect(throws: L2CAPSignalingError.self) { try ConnectionParameterUpdateRequest(data: [1, 2, 3]) }
    }

    @Test(arguments: [
        ConnectionParameterUpdateRequest(intervalMin: 0x0005, intervalMax: 0x0010, latency: 0, timeout: 0x0100),  // interval too short
        ConnectionParameterUpdateRequest(intervalMin: 0x0020, intervalMax: 0x0010, latency: 0, timeout: 0x0100),  // min above max
        ConnectionParameterUpdateRequest(intervalMin: 0x0010, intervalMax: 0x0010, latency: 500, timeout: 0x0C80), // latency too high
        ConnectionParameterUpdateRequest(intervalMin: 0x0010, intervalMax: 0x0C80, latency: 0, timeout: 0x000A),   // timeout too short for the interval
    ])
    func outOfRangeRequestsAreRejected(_ request: ConnectionParameterUpdateRequest) {
        #expect(!request.isAcceptable)
    }

    @Test func unknownCommandsGetCommandNotUnderstood() {
        #expect(LESignalingPacket.commandNotUnderstood(identifier: 9).encoded == [0x01, 0x09, 0x02, 0x00, 0x00, 0x00])
    }
}
