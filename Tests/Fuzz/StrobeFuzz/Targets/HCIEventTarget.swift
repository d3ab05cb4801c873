import StrobeHCI

extension FuzzTarget {
    /// One HCI event packet: the event decoder (LE meta subevents and advertising reports
    /// included) and the allocation-free Number Of Completed Packets walk.
    static let hciEvent = FuzzTarget(
        name: "hci-event", summary: "HCI events, LE meta subevents, advertising reports, completed packets",
        run: { input in
            _ = try? HCIEvent(packet: input)
            guard let code = input.first else { return }
            let parameters = UnsafeRawBufferPointer(rebasing: input[1...])
            _ = try? HCIEvent(code: code, parameters: parameters)
            try? HCIEvent.forEachCompletedPackets(parameters) { _ in }
            _ = try? HCIList<LEAdvertisingReport>(decoding: parameters, packet: "LE Advertising Report", extensible: true)
            _ = try? HCIList<LEExtendedAdvertisingReport>(decoding: parameters, packet: "LE Extended Advertising Report", extensible: true)
        },
        seeds: { capture in
            CaptureRecords.distinct(CaptureRecords.packets(of: capture).filter { $0.type == .event }.map(\.bytes))
        })
}
