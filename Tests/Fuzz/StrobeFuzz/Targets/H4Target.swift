import StrobeHCI

extension FuzzTarget {
    /// The H4 deframer over a stream cut into reads of varying size (the first byte picks the
    /// sizes), each event it completes decoded.
    static let h4 = FuzzTarget(
        name: "h4", summary: "H4 deframer (stream in varying reads) and the events it frames",
        run: { input in
            guard let first = input.first else { return }
            let stream = UnsafeRawBufferPointer(rebasing: input[1...])
            var deframer = H4Deframer(limits: .init(maximumACLPayload: 1021, maximumISOPayload: 1021))
            var index = 0
            var read = Int(first % 64) + 1
            while index < stream.count {
                let end = min(index + read, stream.count)
                do throws(TransportError) {
                    try deframer.feed(UnsafeRawBufferPointer(rebasing: stream[index..<end])) { type, packet in
                        if type == .event { _ = try? HCIEvent(packet: packet) }
                    }
                } catch {
                    return
                }
                index = end
                read = read * 7 % 61 + 1
            }
            _ = try? deframer.finish()
        },
        seeds: { capture in
            // Runs of consecutive packets as the controller and host wrote them.
            let packets = CaptureRecords.packets(of: capture, limit: 512)
            var seeds: [[UInt8]] = []
            for start in stride(from: 0, to: packets.count, by: 16) {
                var stream: [UInt8] = [UInt8(start % 64)]
                for packet in packets[start..<min(start + 16, packets.count)] {
                    stream.append(packet.type.rawValue)
                    stream += packet.bytes
                }
                seeds.append(stream)
            }
            return seeds
        })
}
