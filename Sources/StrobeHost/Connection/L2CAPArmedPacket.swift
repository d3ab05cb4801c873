import StrobeHCI
import Synchronization

/// Who is putting a PDU on one link right now, when that must not be interrupted: the link's
/// sender during a PDU of several fragments, or an armed packet during its single write.
/// Claimed with one compare-and-exchange; the armed side never waits for it.
final class L2CAPSendClaim: Sendable {
    private let claimed = Atomic<Bool>(false)

    func tryClaim() -> Bool {
        claimed.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged
    }

    func release() {
        claimed.store(false, ordering: .releasing)
    }
}

/// One L2CAP PDU encoded whole, H4 type byte first, into a buffer of its own, with a controller
/// buffer held for it (`HCIController.tryReserveACL`): what `ATTArmedWrite.fire()` sends.
///
/// `@unchecked Sendable`: the bytes are written once, in `init`, and only read afterwards.
final class L2CAPArmedPacket: ATTArmedPacket, @unchecked Sendable {
    private let controller: HCIController
    private let handle: UInt16
    private let sending: L2CAPSendClaim
    private let bytes: UnsafeMutableRawBufferPointer
    private let length: Int
    private let held = Atomic<Bool>(true)

    /// `nil` when the PDU needs more than one ACL packet or no controller buffer is free.
    init?(_ payload: [UInt8], on channel: L2CAPChannelID, controller: HCIController, handle: UInt16, fragmentLength: Int,
          sending: L2CAPSendClaim) {
        guard let fragmenter = try? L2CAPFragmenter(connectionHandle: handle, maximumFragmentLength: fragmentLength),
              fragmenter.fragmentCount(payloadLength: payload.count) == 1
        else { return nil }
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: fragmenter.packetCapacity(h4Indicator: true), alignment: 1)
        let written = payload.withUnsafeBytes { payload in
            try? fragmenter.writeFragment(0, channel: channel, payload: payload, into: bytes, h4Indicator: true)
        }
        guard let written, controller.tryReserveACL(handle: handle) else {
            bytes.deallocate()
            return nil
        }
        self.controller = controller
        self.handle = handle
        self.sending = sending
        self.bytes = bytes
        length = written
    }

    deinit {
        release()
        bytes.deallocate()
    }

    func tryClaimLink() -> Bool { sending.tryClaim() }
    func releaseLink() { sending.release() }

    func send() throws(HCIError) {
        // The controller buffer goes with the packet (or back to the pool when the send fails).
        guard held.exchange(false, ordering: .acquiringAndReleasing) else { throw .notOpen }
        try controller.sendReservedACL(UnsafeRawBufferPointer(rebasing: bytes[..<length]), handle: handle)
    }

    func release() {
        if held.exchange(false, ordering: .acquiringAndReleasing) { controller.releaseReservedACL(handle: handle) }
    }
}
