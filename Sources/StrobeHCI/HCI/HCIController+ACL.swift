import Logging
import Synchronization

/// The handlers of received ACL data by connection handle, as the reader thread uses them: an
/// immutable snapshot, open-addressed by the handle's low bits. Controllers number their
/// connections from a base upwards, so a lookup is one probe with a predictable compare, where
/// a search by halves took eight dependent, data-driven steps at 256 links. Each handler sits in
/// a box the snapshot owns and the routes borrow, so that a packet's call takes no reference
/// count (an unowned(unsafe) handler in the slot itself was retained per call).
final class ACLRouteTable: @unchecked Sendable {
    final class Box: Sendable {
        let handler: any HCIACLHandler
        init(_ handler: any HCIACLHandler) { self.handler = handler }
    }

    struct Route: @unchecked Sendable {
        /// The route's connection handle, `Route.vacant` for an empty slot (no handle has its
        /// upper four bits set).
        let handle: UInt16
        let box: Unmanaged<Box>?
        /// The handler's `receiveContext`, read from the slot with the box.
        let context: UnsafeMutableRawPointer?

        static let vacant: UInt16 = 0xFFFF
    }

    private let boxes: [Box]
    /// The boxes by handle, the order `finishBatch` ends the batches in; unretained, so that the
    /// walk takes no reference counts.
    private let finishOrder: [Unmanaged<Box>]
    private let routes: UnsafeMutableBufferPointer<Route>
    /// `routes.count - 1`: the count is a power of two, at least twice the handlers.
    private let mask: Int

    init(_ handlers: [ConnectionHandle: any HCIACLHandler]) {
        let entries = handlers.sorted { $0.key < $1.key }.map { ($0.key, Box($0.value)) }
        boxes = entries.map(\.1)
        finishOrder = boxes.map { .passUnretained($0) }
        var count = 2
        while count < 2 * entries.count { count <<= 1 }
        routes = .allocate(capacity: count)
        routes.initialize(repeating: Route(handle: Route.vacant, box: nil, context: nil))
        mask = count - 1
        for (handle, box) in entries {
            var slot = Int(handle.rawValue) & mask
            while routes[slot].handle != Route.vacant { slot = (slot &+ 1) & mask }
            routes[slot] = Route(handle: handle.rawValue, box: .passUnretained(box), context: box.handler.receiveContext)
        }
    }

    deinit {
        routes.deinitialize()
        routes.deallocate()
    }

    /// Delivers to the route of `header`'s handle, and ends the batch there when `endingBatch`;
    /// false when there is no route.
    @inline(__always)
    func deliver(_ header: ACLHeader, payload: UnsafeRawBufferPointer, at time: HostTime, endingBatch: Bool) -> Bool {
        let handle = header.connectionHandle.rawValue
        var slot = Int(handle) & mask
        // Ends at the route or at a vacant slot: at least half the slots are vacant.
        while routes[slot].handle != handle {
            if routes[slot].handle == Route.vacant { return false }
            slot = (slot &+ 1) & mask
        }
        let context = routes[slot].context
        routes[slot].box.unsafelyUnwrapped._withUnsafeGuaranteedRef { box in
            box.handler.controllerDidReceiveACL(header, payload: payload, at: time, context: context)
            if endingBatch { box.handler.controllerDidFinishBatch() }
        }
        return true
    }

    /// The bytes the only route's link still awaits of a PDU it has begun; 0 with no route or
    /// several (another link's packets must not wait behind it).
    var bytesToCompletePDUOnOnlyLink: Int {
        boxes.count == 1 ? boxes[0].handler.bytesToCompletePDU : 0
    }

    /// Ends the batch on every route.
    func finishBatch() {
        for box in finishOrder {
            box._withUnsafeGuaranteedRef { $0.handler.controllerDidFinishBatch() }
        }
    }
}

extension HCIController {
    /// LE_ACL_Data_Packet_Length: the most data bytes one ACL packet carries (0 before `open`).
    public var maximumACLDataLength: Int { state.withLock { $0.acl.maximumLength } }

    // MARK: - Receiving

    /// Routes the ACL data of `handle` to `handler`; `nil` removes the route. Data for a handle
    /// without a route is dropped and counted.
    package func setACLHandler(_ handler: (any HCIACLHandler)?, for handle: ConnectionHandle) {
        state.withLock { s in
            if case .closed = s.phase { return }
            s.routes[handle] = handler
            aclRoutes.offer(ACLRouteTable(s.routes))
        }
    }

    /// The data path: no lock, no allocation; the header parsed in place.
    @inline(__always)
    func receiveACL(_ packet: UnsafeRawBufferPointer, at time: HostTime) {
        guard let header = ACLHeader(packet), packet.count - ACLHeader.size == Int(header.dataTotalLength) else {
            receivedMalformedACL(packet)
            return
        }
        aclCounts.received.incrementBySoleWriter()
        let payload = UnsafeRawBufferPointer(rebasing: packet[ACLHeader.size...])
        // A transport that does not report its reads' ends makes each packet a batch of its own.
        let endingBatch = !transportReportsBatches.load(ordering: .relaxed)
        let delivered = aclRoutes.current()?._withUnsafeGuaranteedRef {
            $0.deliver(header, payload: payload, at: time, endingBatch: endingBatch)
        } ?? false
        if !delivered { receivedUnroutedACL(header) }
    }

    @inline(never)
    private func receivedUnroutedACL(_ header: ACLHeader) {
        aclCounts.withoutHandler.incrementBySoleWriter()
        logger.debug("ACL data for a handle with no connection dropped", metadata: ["handle": "\(header.connectionHandle)"])
    }

    @inline(never)
    private func receivedMalformedACL(_ packet: UnsafeRawBufferPointer) {
        aclCounts.malformed.incrementBySoleWriter()
        do throws(HCIError) {
            _ = try ACLHeader.split(packet)
        } catch {
            state.withLock { $0.lastMalformed = error }
            logger.warning("malformed ACL packet dropped", metadata: ["error": "\(error)"])
        }
    }

    /// Number Of Completed Packets: the buffers come back, walking the entries in place.
    func packetsCompleted(_ parameters: UnsafeRawBufferPointer) throws(HCIError) {
        var completed: [CompletedPackets] = []
        try HCIEvent.forEachCompletedPackets(parameters) { completed.append($0) }
        let (granted, flushed) = state.withLock { s in
            defer { timer.schedule(s.nextDeadline) }
            let granted = completed.flatMap { s.acl.completed($0.connectionHandle, count: Int($0.count)) }
            return (granted, s.acl.hasFlushes ? s.acl.endedFlushes(now: timer.now) : [])
        }
        finish(granted)
        finish(flushed)
    }

    /// Disconnection Complete: the controller flushed the connection's packets; their buffers
    /// are free, senders still waiting on that handle fail, and its route goes.
    func connectionClosed(_ handle: ConnectionHandle) {
        let (ended, flushed) = state.withLock { s in
            defer { timer.schedule(s.nextDeadline) }
            if s.routes.removeValue(forKey: handle) != nil { aclRoutes.offer(ACLRouteTable(s.routes)) }
            let ended = s.acl.connectionClosed(handle)
            return (ended, s.acl.hasFlushes ? s.acl.endedFlushes(now: timer.now) : [])
        }
        finish(ended)
        finish(flushed)
    }

    /// Waits until the controller has reported the ACL packets sent so far on `handle` completed
    /// (Number Of Completed Packets; later ones do not hold it), the connection or the controller
    /// closes, or `timeout` passes; returns whether they were all reported. Ending a link after
    /// this lets its last PDU reach the peer: a controller may drop what it still holds on
    /// Disconnect.
    public func aclPacketsCompleted(on handle: ConnectionHandle, within timeout: Duration) async -> Bool {
        let waiter = Waiter<Void>()
        let now = timer.now
        let immediate = state.withLock { s -> ACLCredits<Waiter<Void>>.Flush? in
            defer { timer.schedule(s.nextDeadline) }
            return s.acl.flush(waiter, handle: handle, now: now, timeout: timeout)
        }
        if let immediate { return immediate.sent }
        return (try? await waiter.wait()) != nil
    }

    // MARK: - Sending

    /// Waits, first come first served, for a controller buffer for one packet on `handle`. Throws
    /// `HCIError.noACLCredits` when the controller returns none within the configured deadline,
    /// `.connectionClosed` when the connection ends first, `.closed` when the controller does,
    /// `CancellationError` when the caller is cancelled.
    package func reserveACLBuffer(for handle: ConnectionHandle) async throws -> ACLBufferReservation {
        let waiter = Waiter<Void>()
        let now = timer.now
        let immediate = state.withLock { s -> ACLCredits<Waiter<Void>>.Grant? in
            if case .idle = s.phase { return .init(token: waiter, handle: handle, result: .failure(.notOpen)) }
            defer { timer.schedule(s.nextDeadline) }
            return s.acl.acquire(waiter, handle: handle, now: now, timeout: configuration.aclCreditTimeout)
        }
        if let immediate { finish([immediate]) }
        try await waiter.wait { [weak self] in
            guard let self else { return }
            // A buffer granted just before the cancel is not lost: `finish` gives it back.
            state.withLock { s in
                s.acl.cancel(waiter)
                timer.schedule(s.nextDeadline)
            }
        }
        return ACLBufferReservation(controller: self, handle: handle)
    }

    /// A controller buffer for `handle` now, when one is free and nobody waits; with
    /// `keepingOneFree`, only when another stays free for everyone else (for a packet held ahead
    /// of a trigger, which must not starve the link). Never waits.
    package func tryReserveACLBuffer(for handle: ConnectionHandle, keepingOneFree: Bool = false) -> ACLBufferReservation? {
        let taken = state.withLock { s in
            guard case .open = s.phase else { return false }
            return s.acl.tryTake(handle, keepingOneFree: keepingOneFree)
        }
        return taken ? ACLBufferReservation(controller: self, handle: handle) : nil
    }

    /// Sends one ACL packet (one fragment: at most `maximumACLDataLength` bytes), first waiting
    /// for a controller buffer as `reserveACLBuffer` does. Never drops.
    package func sendACL(handle: ConnectionHandle, boundary: ACLPacketBoundary, payload: [UInt8]) async throws {
        let maximum = maximumACLDataLength
        guard maximum > 0 else { throw HCIError.notOpen }
        guard payload.count <= maximum else { throw HCIError.aclPayloadTooLong(length: payload.count, maximum: maximum) }
        let header = ACLHeader(connectionHandle: handle, boundary: boundary, dataTotalLength: UInt16(payload.count))
        var packet = [UInt8](repeating: 0, count: 1 + ACLHeader.size + payload.count)
        packet.withUnsafeMutableBytes { buffer in
            buffer[0] = HCIPacketType.acl.rawValue
            header.write(to: buffer.baseAddress! + 1)
            payload.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: buffer[(1 + ACLHeader.size)...]).copyMemory(from: $0) }
        }
        let reservation = try await reserveACLBuffer(for: handle)
        try reservation.send(packet)
    }

    // MARK: - Reservations

    /// The write behind `ACLBufferReservation.send`: no lock before the bytes are with the
    /// transport; on failure the buffer comes back.
    func writeReservedPacket(_ h4Packet: UnsafeRawBufferPointer, handle: ConnectionHandle) throws(HCIError) {
        do {
            try transport.send(h4Packet)
        } catch {
            giveBackACLBuffer(handle)
            throw HCIError.transport(error)
        }
        aclCounts.sent.wrappingAdd(1, ordering: .relaxed)
    }

    /// A reserved buffer that carried nothing. Harmless once the connection closed (its
    /// buffers came back then).
    func giveBackACLBuffer(_ handle: ConnectionHandle) {
        let granted = state.withLock { $0.acl.giveBack(handle) }
        finish(granted)
    }
}
