import StrobeCapture

extension FuzzTarget {
    /// A whole capture file: the record reader, the ATT decoder and the record decoder that walk
    /// it (ACL, L2CAP, ATT, signalling, SMP inside), as `strobe capture` reads a file a user hands it.
    static let btsnoop = FuzzTarget(
        name: "btsnoop", summary: "btsnoop files: records, the ATT decoder, capture show's record decoder",
        run: { input in
            let bytes = Array(input)
            if let reader = try? BtsnoopReader(bytes: bytes) {
                while let record = try? reader.next() { _ = record.kind }
            }
            if let decoder = try? CaptureATTDecoder(bytes: bytes) {
                while let pdu = try? decoder.next() { _ = pdu.text }
            }
            if let decoder = try? CaptureRecordDecoder(bytes: bytes) {
                while let record = try? decoder.next() { _ = record.text }
            }
        },
        seeds: { capture in
            // The file's start, as whole captures are too large to mutate usefully.
            [Array(capture.prefix(4096)), Array(capture.prefix(512))]
        })
}
