import Testing
import StrobeHCI

@Suite struct StatusAndErrorTests {
    @Test func statusPrintsSpecNameAndCode() {
        #expect(HCIError.status(.connectionTimeout).description == "Connection Timeout (0x08)")
        #expect(HCIStatus.unknownHCICommand.description == "Unknown HCI Command (0x01)")
        #expect(HCIStatus.packetTooLong.description == "Packet Too Long (0x45)")
        #expect(HCIStatus(rawValue: 0x3E).description == "Connection Failed to be Established / Synchronization Timeout (0x3E)")
        #expect(HCIStatus(rawValue: 0x2B).description == "Unknown status (0x2B)")
        #expect(HCIStatus(rawValue: 0x99).description == "Unknown status (0x99)" && HCIStatus(rawValue: 0x99).assignedName == nil)
        #expect(HCIStatus(rawValue: 0x08) == .connectionTimeout)
    }

    @Test func everyAssignedCodeHasAName() {
        // 0x00 ... 0x45 less the three reserved values 0x2B, 0x31 and 0x33.
        #expect(HCIStatus.allAssigned.count == 0x46 - 3)
        #expect(Set(HCIStatus.allAssigned.map(\.name)).count == HCIStatus.allAssigned.count)
        for code in [UInt8(0x2B), 0x31, 0x33] {
            #expect(!HCIStatus.allAssigned.contains(HCIStatus(rawValue: code)))
        }
    }

    @Test func errorsSayWhatHappened() {
        #expect(HCIError.commandTimeout(.reset, after: .seconds(2)).description == "no answer from the controller to Reset (0x0C03) within 2 s")
        #expect(HCIError.noCommandCredits(.leSetScanEnable, after: .milliseconds(500)).description
            == "the controller granted no command credits for 500 ms (Num_HCI_Command_Packets stayed 0): LE Set Scan Enable (0x200C) was never sent")
        #expect(HCIError.commandFailed(.leCreateConnection, .commandDisallowed).description == "LE Create Connection (0x200D) failed: Command Disallowed (0x0C)")
        #expect(HCIError.malformed(packet: "LE Advertising Report", detail: "Data[0] needs 18 bytes, 5 left").description
            == "malformed LE Advertising Report: Data[0] needs 18 bytes, 5 left")
        #expect(HCIError.closed(.closedByPeer).description == "the controller link ended: the controller closed the link")
        #expect(HCIError.aclPayloadTooLong(length: 30, maximum: 27).description
            == "ACL payload of 30 bytes exceeds the controller's 27-byte buffers")
    }
}
