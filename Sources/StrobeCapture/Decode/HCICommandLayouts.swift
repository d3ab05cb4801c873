import StrobeHCI

/// The parameter layouts of the commands the stack sends (Core Specification Vol 4, Part E, 7),
/// as field names and sizes, so a capture's commands show their fields; a command not listed, or
/// one whose parameters do not fit its layout, shows its parameters as hex. A size of 0 takes
/// the rest.
enum HCICommandLayouts {
    typealias Field = (name: String, size: Int)

    static let layouts: [UInt16: [Field]] = [
        0x0406: [("Connection_Handle", 2), ("Reason", 1)],                                   // Disconnect
        0x041D: [("Connection_Handle", 2)],                                                  // Read Remote Version Information
        0x0C01: [("Event_Mask", 8)],                                                         // Set Event Mask
        0x2001: [("LE_Event_Mask", 8)],                                                      // LE Set Event Mask
        0x2005: [("Random_Address", 6)],                                                     // LE Set Random Address
        0x2006: [("Advertising_Interval_Min", 2), ("Advertising_Interval_Max", 2), ("Advertising_Type", 1),
                 ("Own_Address_Type", 1), ("Peer_Address_Type", 1), ("Peer_Address", 6),
                 ("Advertising_Channel_Map", 1), ("Advertising_Filter_Policy", 1)],        // LE Set Advertising Parameters
        0x2008: [("Advertising_Data_Length", 1), ("Advertising_Data", 0)],                  // LE Set Advertising Data
        0x2009: [("Scan_Response_Data_Length", 1), ("Scan_Response_Data", 0)],              // LE Set Scan Response Data
        0x200A: [("Advertising_Enable", 1)],                                                 // LE Set Advertising Enable
        0x200B: [("LE_Scan_Type", 1), ("LE_Scan_Interval", 2), ("LE_Scan_Window", 2),
                 ("Own_Address_Type", 1), ("Scanning_Filter_Policy", 1)],                  // LE Set Scan Parameters
        0x200C: [("LE_Scan_Enable", 1), ("Filter_Duplicates", 1)],                          // LE Set Scan Enable
        0x200D: [("LE_Scan_Interval", 2), ("LE_Scan_Window", 2), ("Initiator_Filter_Policy", 1),
                 ("Peer_Address_Type", 1), ("Peer_Address", 6), ("Own_Address_Type", 1),
                 ("Connection_Interval_Min", 2), ("Connection_Interval_Max", 2), ("Max_Latency", 2),
                 ("Supervision_Timeout", 2), ("Min_CE_Length", 2), ("Max_CE_Length", 2)],  // LE Create Connection
        0x2013: [("Connection_Handle", 2), ("Connection_Interval_Min", 2), ("Connection_Interval_Max", 2),
                 ("Max_Latency", 2), ("Supervision_Timeout", 2), ("Min_CE_Length", 2), ("Max_CE_Length", 2)],  // LE Connection Update
        0x2016: [("Connection_Handle", 2)],                                                  // LE Read Remote Features
        0x201A: [("Connection_Handle", 2), ("Long_Term_Key", 16)],                          // LE Long Term Key Request Reply
        0x201B: [("Connection_Handle", 2)],                                                  // LE Long Term Key Request Negative Reply
        0x2019: [("Connection_Handle", 2), ("Random_Number", 8), ("Encrypted_Diversifier", 2),
                 ("Long_Term_Key", 16)],                                                     // LE Enable Encryption
        0x2020: [("Connection_Handle", 2), ("Interval_Min", 2), ("Interval_Max", 2), ("Max_Latency", 2),
                 ("Timeout", 2), ("Min_CE_Length", 2), ("Max_CE_Length", 2)],              // LE Remote Connection Parameter Request Reply
        0x2021: [("Connection_Handle", 2), ("Reason", 1)],                                   // LE Remote Connection Parameter Request Negative Reply
        0x2022: [("Connection_Handle", 2), ("TX_Octets", 2), ("TX_Time", 2)],               // LE Set Data Length
        0x2030: [("Connection_Handle", 2)],                                                  // LE Read PHY
        0x2032: [("Connection_Handle", 2), ("All_PHYs", 1), ("TX_PHYs", 1), ("RX_PHYs", 1), ("PHY_Options", 2)],  // LE Set PHY
        0x2035: [("Advertising_Handle", 1), ("Random_Address", 6)],                        // LE Set Advertising Set Random Address
        0x2036: [("Advertising_Handle", 1), ("Advertising_Event_Properties", 2), ("Primary_Advertising_Interval_Min", 3),
                 ("Primary_Advertising_Interval_Max", 3), ("Primary_Advertising_Channel_Map", 1), ("Own_Address_Type", 1),
                 ("Peer_Address_Type", 1), ("Peer_Address", 6), ("Advertising_Filter_Policy", 1), ("Advertising_TX_Power", 1),
                 ("Primary_Advertising_PHY", 1), ("Secondary_Advertising_Max_Skip", 1), ("Secondary_Advertising_PHY", 1),
                 ("Advertising_SID", 1), ("Scan_Request_Notification_Enable", 1)],          // LE Set Extended Advertising Parameters
        0x2037: [("Advertising_Handle", 1), ("Operation", 1), ("Fragment_Preference", 1), ("Advertising_Data_Length", 1),
                 ("Advertising_Data", 0)],                                                   // LE Set Extended Advertising Data
        0x2038: [("Advertising_Handle", 1), ("Operation", 1), ("Fragment_Preference", 1), ("Scan_Response_Data_Length", 1),
                 ("Scan_Response_Data", 0)],                                                 // LE Set Extended Scan Response Data
        0x2039: [("Enable", 1), ("Number_of_Sets", 1), ("Per_Set_Parameters", 0)],          // LE Set Extended Advertising Enable
        0x2041: [("Own_Address_Type", 1), ("Scanning_Filter_Policy", 1), ("Scanning_PHYs", 1),
                 ("Per_PHY_Parameters", 0)],                                                 // LE Set Extended Scan Parameters
        0x2042: [("Enable", 1), ("Filter_Duplicates", 1), ("Duration", 2), ("Period", 2)],  // LE Set Extended Scan Enable
        0x2043: [("Initiator_Filter_Policy", 1), ("Own_Address_Type", 1), ("Peer_Address_Type", 1),
                 ("Peer_Address", 6), ("Initiating_PHYs", 1), ("Per_PHY_Parameters", 0)],  // LE Extended Create Connection
    ]

    /// The command's fields, or `nil` when it has no layout or its parameters do not fit it.
    static func fields(opcode: UInt16, parameters: UnsafeRawBufferPointer) -> [DecodedRecord.Field]? {
        guard let layout = layouts[opcode] else { return nil }
        var fields: [DecodedRecord.Field] = []
        var offset = 0
        for field in layout {
            let size = field.size == 0 ? parameters.count - offset : field.size
            guard size >= 0, offset + size <= parameters.count else { return nil }
            let bytes = Array(parameters[offset..<offset + size])
            fields.append(DecodedRecord.Field(name: field.name, value: text(bytes, name: field.name)))
            offset += size
        }
        return offset == parameters.count ? fields : nil
    }

    /// Little-endian numbers as hex, addresses as AA:BB:..., data as hex bytes in order.
    private static func text(_ bytes: [UInt8], name: String) -> String {
        // Keys stay out of text output (they would decrypt the link): their length only.
        if name.hasSuffix("Key") { return "(\(bytes.count)-byte key, not shown)" }
        if name.hasSuffix("Address"), bytes.count == 6, let address = BluetoothAddress(wireBytes: bytes) { return "\(address)" }
        if bytes.count <= 8, !name.hasSuffix("Data"), !name.hasSuffix("Key"), !name.hasSuffix("Parameters") {
            let value = bytes.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let digits = String(value, radix: 16, uppercase: true)
            return "0x" + String(repeating: "0", count: max(0, bytes.count * 2 - digits.count)) + digits
        }
        return bytes.isEmpty ? "(empty)" : bytes.map { ReflectedFields.hex($0) }.joined()
    }
}
