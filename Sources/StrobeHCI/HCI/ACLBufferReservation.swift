/// One controller buffer, taken for one ACL packet on one connection (`HCIController.reserveACLBuffer`
/// or `tryReserveACLBuffer`). Noncopyable: it is used once, by `send`, or given back by `release`
/// or when it goes out of scope; the credit can never be lost or spent twice.
///
/// Sending takes no lock and allocates nothing, so a packet made ready ahead of a trigger can
/// leave from the reader thread.
package struct ACLBufferReservation: ~Copyable, @unchecked Sendable {
    // Unmanaged, so that `send` and `release` can end the value without running deinit.
    private let controller: Unmanaged<HCIController>
    package let handle: ConnectionHandle

    init(controller: HCIController, handle: ConnectionHandle) {
        self.controller = .passRetained(controller)
        self.handle = handle
    }

    /// Writes one whole H4 ACL packet (type byte, header, one fragment of at most the
    /// controller's LE ACL length) on this buffer. On failure the buffer goes back.
    package consuming func send(_ h4Packet: UnsafeRawBufferPointer) throws(HCIError) {
        let controller = self.controller
        let handle = self.handle
        discard self
        try Self.write(h4Packet, controller: controller, handle: handle)
    }

    /// `send` for a packet held in an array.
    package consuming func send(_ h4Packet: [UInt8]) throws(HCIError) {
        let controller = self.controller
        let handle = self.handle
        discard self
        var failure: HCIError?
        h4Packet.withUnsafeBytes { bytes in
            do throws(HCIError) {
                try Self.write(bytes, controller: controller, handle: handle)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    /// Writes and gives up the reference the reservation held.
    private static func write(_ h4Packet: UnsafeRawBufferPointer, controller: Unmanaged<HCIController>,
                              handle: ConnectionHandle) throws(HCIError) {
        defer { controller.release() }
        var failure: HCIError?
        controller._withUnsafeGuaranteedRef { controller in
            do throws(HCIError) {
                try controller.writeReservedPacket(h4Packet, handle: handle)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    /// Gives the buffer back unused.
    package consuming func release() {
        let controller = self.controller
        let handle = self.handle
        discard self
        controller.takeRetainedValue().giveBackACLBuffer(handle)
    }

    deinit {
        controller.takeRetainedValue().giveBackACLBuffer(handle)
    }
}
