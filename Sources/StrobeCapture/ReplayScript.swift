import StrobeHCI

/// What an answering replay plays, read out of a capture once: the controller's recorded answers
/// to each command, and everything else the controller sent, in order with its capture time.
///
/// Answers are Command Complete and Command Status events, filed under the opcode they answer;
/// the host's nth command with an opcode gets the nth recorded answer (the last one again when
/// the host sends it more often), and a command the capture never answered gets a generic
/// success. The rest of the controller's side plays as recorded, except that it waits at the
/// point where the capture's host first enabled scanning (or at its first advertising report,
/// when the capture starts with scanning already on) until our host enables scanning too:
/// advertising reports only mean something to a host that scans.
package struct ReplayScript: Sendable {
    /// One controller-to-host packet that is not an answer.
    package struct Packet: Sendable {
        package var type: HCIPacketType
        package var payload: [UInt8]
        /// Capture time, microseconds since 0001-01-01 as btsnoop stores it.
        package var captureMicroseconds: Int64
    }

    package private(set) var answers: [HCIOpcode: [[UInt8]]] = [:]
    package private(set) var packets: [Packet] = []
    /// Index into `packets` of the first packet after the capture's first scan enable, or of its
    /// first advertising report if that comes first, and that point's capture time; `nil` when
    /// the capture neither scans nor has reports.
    package private(set) var scanStart: (index: Int, captureMicroseconds: Int64)?
    /// Records read, and records that carried no HCI packet.
    package private(set) var records = 0
    package private(set) var nonHCI = 0

    /// Reads the whole capture. Throws at a malformed record.
    package init(_ reader: BtsnoopReader) throws(BtsnoopError) {
        while let record = try reader.next() {
            records += 1
            guard case .hci(let type) = record.kind, let direction = record.direction else {
                nonHCI += 1
                continue
            }
            let time = record.timestamp.unixMicroseconds
            let payload = record.payload
            switch direction {
            case .hostToController:
                if type == .command, scanStart == nil, Self.enablesScanning(payload) {
                    scanStart = (packets.count, time)
                }
            case .controllerToHost:
                if type == .event, let opcode = Self.answeredOpcode(payload) {
                    answers[opcode, default: []].append(Array(payload))
                } else {
                    if type == .event, scanStart == nil, Self.isAdvertisingReport(payload) {
                        scanStart = (packets.count, time)
                    }
                    packets.append(Packet(type: type, payload: Array(payload), captureMicroseconds: time))
                }
            }
        }
    }

    /// The opcode a Command Complete or Command Status event answers.
    static func answeredOpcode(_ event: UnsafeRawBufferPointer) -> HCIOpcode? {
        guard event.count >= 2 else { return nil }
        let offset: Int
        switch event[0] {
        case HCIEventCode.commandComplete: offset = 3   // code, length, Num_HCI_Command_Packets
        case HCIEventCode.commandStatus: offset = 4     // code, length, Status, Num_HCI_Command_Packets
        default: return nil
        }
        guard event.count >= offset + 2 else { return nil }
        return HCIOpcode(rawValue: UInt16(event[offset]) | UInt16(event[offset + 1]) << 8)
    }

    /// LE Advertising Report, LE Directed Advertising Report or LE Extended Advertising Report.
    static func isAdvertisingReport(_ event: UnsafeRawBufferPointer) -> Bool {
        event.count >= 3 && event[0] == HCIEventCode.leMeta && [0x02, 0x0B, 0x0D].contains(event[2])
    }

    /// LE Set Scan Enable or LE Set Extended Scan Enable with Enable = 1.
    static func enablesScanning(_ command: UnsafeRawBufferPointer) -> Bool {
        guard command.count >= 4 else { return false }
        let opcode = HCIOpcode(rawValue: UInt16(command[0]) | UInt16(command[1]) << 8)
        return (opcode == .leSetScanEnable || opcode == .leSetExtendedScanEnable) && command[3] == 0x01
    }

    /// The answer to the `occurrence`th (from 0) command with `opcode`: the recorded one with its
    /// Num_HCI_Command_Packets raised to at least 1 (the host's next command must not wait on a
    /// credit the capture's host got later), or a generic success.
    package func answer(to opcode: HCIOpcode, occurrence: Int) -> [UInt8] {
        guard let recorded = answers[opcode], !recorded.isEmpty else { return Self.genericSuccess(opcode) }
        var answer = recorded[min(occurrence, recorded.count - 1)]
        let creditIndex = answer[0] == HCIEventCode.commandComplete ? 2 : 3
        if answer.count > creditIndex { answer[creditIndex] = max(answer[creditIndex], 1) }
        return answer
    }

    /// Command Status (success) for the commands answered that way, otherwise Command Complete
    /// with status success and return parameters of the length the command returns: buffer sizes
    /// a common controller has, zeros elsewhere (no optional command or feature supported).
    static func genericSuccess(_ opcode: HCIOpcode) -> [UInt8] {
        let low = UInt8(opcode.rawValue & 0xFF), high = UInt8(opcode.rawValue >> 8)
        if statusAnswered.contains(opcode) {
            return [HCIEventCode.commandStatus, 4, 0x00, 1, low, high]
        }
        let parameters = genericReturnParameters[opcode]
            ?? [UInt8](repeating: 0, count: returnParameterLengths[opcode] ?? 0)
        return [HCIEventCode.commandComplete, UInt8(4 + parameters.count), 1, low, high, 0x00] + parameters
    }

    /// Commands a controller answers with Command Status, their result following in an event.
    static let statusAnswered: Set<HCIOpcode> = [
        HCIOpcode(rawValue: 0x0406),  // Disconnect
        HCIOpcode(rawValue: 0x041D),  // Read Remote Version Information
        HCIOpcode(rawValue: 0x200D),  // LE Create Connection
        HCIOpcode(rawValue: 0x2013),  // LE Connection Update
        HCIOpcode(rawValue: 0x2016),  // LE Read Remote Features
        HCIOpcode(rawValue: 0x2032),  // LE Set PHY
        HCIOpcode(rawValue: 0x2043),  // LE Extended Create Connection
    ]

    /// Buffers for 8 ACL packets of 251 bytes (LE) or 1021 bytes (shared), none for SCO or ISO.
    static let genericReturnParameters: [HCIOpcode: [UInt8]] = [
        HCIOpcode(rawValue: 0x1005): [0xFD, 0x03, 0, 8, 0, 0, 0],  // Read Buffer Size
        HCIOpcode(rawValue: 0x2002): [0xFB, 0x00, 8],              // LE Read Buffer Size [v1]
        HCIOpcode(rawValue: 0x2060): [0xFB, 0x00, 8, 0, 0, 0],     // LE Read Buffer Size [v2]
    ]

    /// Return parameter lengths after the status byte (Core Vol 4, Part E, 7), for the commands
    /// whose answers carry more than a status.
    static let returnParameterLengths: [HCIOpcode: Int] = [
        HCIOpcode(rawValue: 0x1001): 8,   // Read Local Version Information
        HCIOpcode(rawValue: 0x1002): 64,  // Read Local Supported Commands
        HCIOpcode(rawValue: 0x1003): 8,   // Read Local Supported Features
        HCIOpcode(rawValue: 0x1005): 7,   // Read Buffer Size
        HCIOpcode(rawValue: 0x1009): 6,   // Read BD_ADDR
        HCIOpcode(rawValue: 0x2002): 3,   // LE Read Buffer Size [v1]
        HCIOpcode(rawValue: 0x2003): 8,   // LE Read Local Supported Features
        HCIOpcode(rawValue: 0x2007): 1,   // LE Read Advertising Physical Channel Tx Power
        HCIOpcode(rawValue: 0x200F): 1,   // LE Read Filter Accept List Size
        HCIOpcode(rawValue: 0x2018): 8,   // LE Rand
        HCIOpcode(rawValue: 0x201C): 8,   // LE Read Supported States
        HCIOpcode(rawValue: 0x2022): 2,   // LE Set Data Length (handle)
        HCIOpcode(rawValue: 0x2023): 4,   // LE Read Suggested Default Data Length
        HCIOpcode(rawValue: 0x202F): 8,   // LE Read Maximum Data Length
        HCIOpcode(rawValue: 0x2030): 4,   // LE Read PHY (handle, TX, RX)
        HCIOpcode(rawValue: 0x2036): 1,   // LE Set Extended Advertising Parameters (Selected_TX_Power)
        HCIOpcode(rawValue: 0x203A): 2,   // LE Read Maximum Advertising Data Length
        HCIOpcode(rawValue: 0x203B): 1,   // LE Read Number of Supported Advertising Sets
        HCIOpcode(rawValue: 0x2060): 6,   // LE Read Buffer Size [v2]
    ]
}
