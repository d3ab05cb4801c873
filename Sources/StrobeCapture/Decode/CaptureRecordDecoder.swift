import StrobeHCI
import StrobeHost
import StrobeSecurity

/// Walks a capture record by record and decodes each one as far as its layers go
/// (`DecodedRecord`): HCI commands (name, parameters), events (name and fields, LE Meta
/// subevents included), ACL data (handle, boundary, length) and, on the record that completes an
/// L2CAP PDU, its channel and content: ATT PDUs with their fields, LE signalling commands, SMP
/// PDUs (codes and parameters; distributed keys and the LTKs of encryption commands are not
/// shown, only their length). Every record comes out once, in order.
package final class CaptureRecordDecoder {
    private let reader: BtsnoopReader
    private var firstTime: Int64?
    private var reassemblers = CaptureReassemblers()

    package init(path: String) throws(BtsnoopError) {
        reader = try BtsnoopReader(path: path)
    }

    package init(bytes: [UInt8]) throws(BtsnoopError) {
        reader = try BtsnoopReader(bytes: bytes)
    }

    /// The next record, or `nil` at the end. A capture that is itself broken throws.
    package func next() throws(BtsnoopError) -> DecodedRecord? {
        guard let record = try reader.next() else { return nil }
        let micros = record.timestamp.unixMicroseconds
        let first = firstTime ?? micros
        firstTime = first
        var decoded = DecodedRecord(
            index: record.index, time: Double(micros &- first) / 1e6, direction: record.direction.map { "\($0)" },
            packet: record.packetType.map { "\($0)" } ?? "non-HCI", truncated: record.isTruncated, layers: [])
        switch record.packetType {
        case .command: command(record.payload, into: &decoded)
        case .event: event(record.payload, into: &decoded)
        case .acl: acl(record, into: &decoded)
        default: decoded.undecoded = Self.hex(record.payload)
        }
        return decoded
    }

    // MARK: HCI

    private func command(_ packet: UnsafeRawBufferPointer, into decoded: inout DecodedRecord) {
        guard packet.count >= 3 else {
            decoded.undecoded = Self.hex(packet)
            return
        }
        let opcode = HCIOpcode(rawValue: UInt16(packet[0]) | UInt16(packet[1]) << 8)
        decoded.hciOpcode = opcode.rawValue
        let parameters = UnsafeRawBufferPointer(rebasing: packet[3...])
        let raw = DecodedRecord.Field(name: "parameters", value: Self.hex(parameters))
        let fields: [DecodedRecord.Field]
        switch HCICommandCatalog.fields(opcode: opcode.rawValue, parameters: parameters) {
        case .success(let described)?:
            fields = described.map { DecodedRecord.Field(name: $0.name, value: $0.value) }
        case .failure(let error)?:
            // Parameters that do not fit a command that carries a key might hold one.
            let carriesKey = HCICommandCatalog.command(opcode: opcode.rawValue)?.carriesKey ?? true
            fields = [DecodedRecord.Field(name: "malformed", value: error.description)] + (carriesKey ? [] : [raw])
        case nil:
            fields = parameters.isEmpty ? [] : [raw]
        }
        decoded.layers.append(DecodedRecord.Layer(protocolName: "hci", title: "HCI Command: \(opcode) plen \(packet[2])", fields: fields))
    }

    private func event(_ packet: UnsafeRawBufferPointer, into decoded: inout DecodedRecord) {
        guard packet.count >= 2 else {
            decoded.undecoded = Self.hex(packet)
            return
        }
        let code = packet[0]
        decoded.eventCode = code
        var title = "HCI Event: \(HCIEventCode.name(code)) (0x\(Self.hex(code))) plen \(packet[1])"
        if code == HCIEventCode.leMeta, packet.count >= 3 {
            decoded.leSubevent = packet[2]
            title += " - \(LEMetaSubevent.name(packet[2]))"
        }
        var fields: [DecodedRecord.Field] = []
        do throws(HCIError) {
            let event = try HCIEvent(packet: packet)
            switch event {
            case .unknown, .unknownLEMeta:
                fields = [DecodedRecord.Field(name: "parameters", value: Self.hex(UnsafeRawBufferPointer(rebasing: packet[2...])))]
            case .commandComplete(let complete):
                fields = ReflectedFields.ofCasePayload(event).filter { $0.name != "returnParameters" }
                    + Self.returnFields(complete)
            default:
                fields = ReflectedFields.ofCasePayload(event)
            }
        } catch {
            fields = [DecodedRecord.Field(name: "malformed", value: error.description)]
            decoded.undecoded = Self.hex(packet)
        }
        decoded.layers.append(DecodedRecord.Layer(protocolName: "hci", title: title, fields: fields))
    }

    /// Command Complete's return parameters by their names, for a command the stack sends; as
    /// bytes otherwise, or when they do not fit (none of them is a key).
    private static func returnFields(_ complete: CommandCompleteEvent) -> [DecodedRecord.Field] {
        let raw = DecodedRecord.Field(name: "returnParameters", value: complete.returnParameters.map { ReflectedFields.hex($0) }.joined())
        let described = complete.returnParameters.withUnsafeBytes {
            HCICommandCatalog.returnFields(opcode: complete.opcode.rawValue, returnParameters: $0)
        }
        switch described {
        case .success(let fields)?: return fields.map { DecodedRecord.Field(name: $0.name, value: $0.value) }
        case .failure(let error)?: return [DecodedRecord.Field(name: "malformed", value: error.description), raw]
        case nil: return [raw]
        }
    }

    // MARK: ACL and above

    private func acl(_ record: BtsnoopRecord, into decoded: inout DecodedRecord) {
        let packet: ACLDataPacket
        do throws(L2CAPError) {
            packet = try ACLDataPacket(parsing: record.payload)
        } catch {
            decoded.layers.append(DecodedRecord.Layer(protocolName: "acl", title: "ACL Data (malformed)",
                                                      fields: [DecodedRecord.Field(name: "error", value: "\(error)")]))
            decoded.undecoded = Self.hex(record.payload)
            return
        }
        let header = packet.header
        decoded.layers.append(DecodedRecord.Layer(
            protocolName: "acl",
            title: "ACL Data: handle \(header.connectionHandle) flags 0x\(Self.hex(header.boundary.rawValue)) dlen \(header.dataTotalLength)",
            fields: [DecodedRecord.Field(name: "boundary", value: "\(header.boundary)")]))
        guard !record.isTruncated else { return }
        reassemblers.reassembler(handle: header.connectionHandle, direction: record.direction).receive(packet) { event in
            switch event {
            case .pdu(let pdu): l2cap(pdu, into: &decoded)
            case .error(let error):
                decoded.layers.append(DecodedRecord.Layer(protocolName: "l2cap", title: "L2CAP: dropped",
                                                          fields: [DecodedRecord.Field(name: "error", value: "\(error)")]))
            }
        }
    }

    private func l2cap(_ pdu: L2CAPPDU, into decoded: inout DecodedRecord) {
        decoded.layers.append(DecodedRecord.Layer(
            protocolName: "l2cap", title: "L2CAP: cid \(pdu.channel) len \(pdu.payload.count)", fields: []))
        guard let code = pdu.payload.first else { return }
        switch pdu.channel {
        case .att:
            decoded.attOpcode = code
            let opcode = ATTOpcode(rawValue: code)
            var fields: [DecodedRecord.Field]
            if let codec = ATTPDUCodecs.codec(for: code) {
                do throws(ATTDecodingError) {
                    fields = ReflectedFields.of(try codec.init(pdu: pdu.payload))
                } catch {
                    fields = [DecodedRecord.Field(name: "malformed", value: "\(error)"),
                              DecodedRecord.Field(name: "bytes", value: Self.hex(pdu.payload))]
                }
            } else {
                fields = [DecodedRecord.Field(name: "parameters", value: Self.hex(UnsafeRawBufferPointer(rebasing: pdu.payload[1...])))]
            }
            decoded.layers.append(DecodedRecord.Layer(protocolName: "att", title: "ATT: \(opcode) len \(pdu.payload.count)", fields: fields))
        case .smp:
            decoded.smpCode = code
            let command = SMPCommandCode(rawValue: code)
            let fields: [DecodedRecord.Field]
            do throws(SMPPDUError) {
                // The PDU's own fields; distributed keys (LTK, EDIV and Rand, IRK, CSRK) by length only.
                fields = try SMPPDU(decoding: Array(pdu.payload)).fields.map { DecodedRecord.Field(name: $0.name, value: $0.value) }
            } catch {
                let parameters = UnsafeRawBufferPointer(rebasing: pdu.payload[1...])
                let value = command?.distributesKey == true ? "(\(parameters.count) bytes of key material, not shown)" : Self.hex(parameters)
                fields = [DecodedRecord.Field(name: "malformed", value: "\(error)")]
                    + (parameters.isEmpty ? [] : [DecodedRecord.Field(name: "parameters", value: value)])
            }
            decoded.layers.append(DecodedRecord.Layer(
                protocolName: "smp", title: "SMP: \(command?.name ?? "code 0x\(Self.hex(code))") (0x\(Self.hex(code))) len \(pdu.payload.count)",
                fields: fields))
        case .leSignaling:
            let fields: [DecodedRecord.Field]
            let title: String
            do throws(L2CAPSignalingError) {
                let command = try LESignalingPacket(parsing: pdu.payload)
                let name = LESignalingCode(rawValue: command.code).map { "\($0)" } ?? "code 0x\(Self.hex(command.code))"
                title = "LE Signaling: \(name) ident \(command.identifier)"
                if let typed = Self.creditBasedCommand(command) {
                    fields = ReflectedFields.of(typed)
                } else {
                    fields = command.data.isEmpty ? [] : [DecodedRecord.Field(name: "data", value: command.data.map(Self.hex).joined())]
                }
            } catch {
                title = "LE Signaling (malformed)"
                fields = [DecodedRecord.Field(name: "error", value: "\(error)")]
            }
            decoded.layers.append(DecodedRecord.Layer(protocolName: "signaling", title: title, fields: fields))
        case let channel where channel.isDynamicLE:
            // A credit-based channel's K-frame: whether it starts an SDU (with its length) takes
            // the channel's history, which one record does not have.
            decoded.layers.append(DecodedRecord.Layer(
                protocolName: "l2cap", title: "K-frame on \(channel) len \(pdu.payload.count)",
                fields: [DecodedRecord.Field(name: "payload", value: Self.hex(pdu.payload))]))
        default:
            decoded.undecoded = Self.hex(pdu.payload)
        }
    }

    /// The fields of a credit-based channel's signalling command, when it is one and well formed.
    static func creditBasedCommand(_ command: LESignalingPacket) -> Any? {
        switch LESignalingCode(rawValue: command.code) {
        case .leCreditBasedConnectionRequest: try? LECreditBasedConnectionRequest(data: command.data)
        case .leCreditBasedConnectionResponse: try? LECreditBasedConnectionResponse(data: command.data)
        case .flowControlCredit: try? LEFlowControlCredit(data: command.data)
        case .creditBasedConnectionRequest: try? CreditBasedConnectionRequest(data: command.data)
        case .creditBasedConnectionResponse: try? CreditBasedConnectionResponse(data: command.data)
        case .creditBasedReconfigureRequest: try? CreditBasedReconfigureRequest(data: command.data)
        case .creditBasedReconfigureResponse: (try? CreditBasedReconfigureResult(data: command.data)).map { ReconfigureResponse(result: $0) }
        case .disconnectionRequest: try? L2CAPDisconnection(data: command.data, code: .disconnectionRequest)
        case .disconnectionResponse: try? L2CAPDisconnection(data: command.data, code: .disconnectionResponse)
        default: nil
        }
    }

    /// Credit Based Reconfigure Response's one field, named.
    private struct ReconfigureResponse { var result: CreditBasedReconfigureResult }

    static func hex(_ byte: UInt8) -> String { (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true) }
    static func hex(_ bytes: UnsafeRawBufferPointer) -> String { bytes.map { ReflectedFields.hex($0) }.joined() }
}
