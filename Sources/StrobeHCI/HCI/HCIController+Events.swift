import Logging
extension HCIController {
    /// Registers a handler called on the transport's reader thread with every event that the
    /// command and ACL flow control do not consume (all but Command Complete, Command Status and
    /// Number Of Completed Packets), in arrival order. `onClose` is called once when the
    /// controller closes. Handlers must not block.
    @discardableResult
    package func addEventHandler(onClose: (@Sendable (HCIError) -> Void)? = nil,
                                _ handler: @escaping @Sendable (HCIEvent, HostTime) -> Void) -> ObserverToken {
        let (id, closedWith) = state.withLock { s -> (UInt64, HCIError?) in
            s.nextID += 1
            if case .closed(let error) = s.phase { return (s.nextID, HCIError.closed(error)) }
            s.observers.append(Observer(id: s.nextID, handler: handler, onClose: onClose))
            return (s.nextID, nil)
        }
        if let closedWith { onClose?(closedWith) }
        return ObserverToken(id: id)
    }

    package func removeEventHandler(_ token: ObserverToken) {
        state.withLock { s in s.observers.removeAll { $0.id == token.id } }
    }

    /// The events `addEventHandler` would see, as an async sequence that finishes when the
    /// controller closes or the consumer stops iterating.
    package func events(
        bufferingPolicy: AsyncStream<TimedEvent>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<TimedEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: TimedEvent.self, bufferingPolicy: bufferingPolicy)
        let token = addEventHandler(onClose: { _ in continuation.finish() }) { event, time in
            continuation.yield(TimedEvent(event: event, time: time))
        }
        continuation.onTermination = { [weak self] _ in self?.removeEventHandler(token) }
        return stream
    }

    // MARK: - Receiving (reader thread)

    /// Called by the transport on its reader thread for each packet. Events update the command
    /// and ACL credits or go to the event handlers, ACL data goes to the handler registered for its
    /// connection handle; packets of other types, and malformed ones, are counted and dropped.
    public func transportDidReceive(_ type: HCIPacketType, payload: UnsafeRawBufferPointer, at time: HostTime) {
        switch type {
        case .acl: receiveACL(payload, at: time)
        case .event: receiveEvent(payload, at: time)
        default: receivedUnexpected(type, payload)
        }
    }

    @inline(never)
    private func receivedUnexpected(_ type: HCIPacketType, _ payload: UnsafeRawBufferPointer) {
        state.withLock { $0.counters.unexpectedPackets += 1 }
        logger.debug("\(type) packet from the controller dropped", metadata: ["length": "\(payload.count)"])
    }

    /// The end of one read's packets: every link wakes what it deferred waking.
    public func transportDidFinishBatch() {
        if !transportReportsBatches.load(ordering: .relaxed) { transportReportsBatches.store(true, ordering: .relaxed) }
        aclRoutes.current()?._withUnsafeGuaranteedRef { $0.finishBatch() }
    }

    // Out of line: inlined, its frame (hundreds of bytes) was set up for every ACL packet too.
    @inline(never)
    private func receiveEvent(_ packet: UnsafeRawBufferPointer, at time: HostTime) {
        do throws(HCIError) {
            let (code, parameters) = try HCIEvent.split(packet)
            state.withLock { $0.counters.eventsReceived += 1 }
            switch code {
            case HCIEventCode.commandComplete:
                var r = HCIFieldReader(parameters, packet: "Command Complete")
                let credits = try r.u8("Num_HCI_Command_Packets")
                let opcode = HCIOpcode(rawValue: try r.u16("Command_Opcode"))
                commandAnswered(opcode: opcode, credits: credits, status: nil, returnParameters: r.rest())
            case HCIEventCode.commandStatus:
                var r = HCIFieldReader(parameters, packet: "Command Status")
                let status = HCIStatus(rawValue: try r.u8("Status"))
                let credits = try r.u8("Num_HCI_Command_Packets")
                let opcode = HCIOpcode(rawValue: try r.u16("Command_Opcode"))
                commandAnswered(opcode: opcode, credits: credits, status: status, returnParameters: r.rest())
            case HCIEventCode.numberOfCompletedPackets:
                try packetsCompleted(parameters)
            default:
                let event = try HCIEvent(code: code, parameters: parameters)
                switch event {
                case .hardwareError:
                    state.withLock { $0.counters.hardwareErrors += 1 }
                case .unknown, .unknownLEMeta:
                    state.withLock { $0.counters.unknownEvents += 1 }
                default:
                    break
                }
                deliver(event, at: time)
                // After the observers: the link closes first with the disconnection's reason,
                // then its senders still waiting for a buffer learn it is gone.
                if case .disconnectionComplete(let disconnection) = event, disconnection.status.isSuccess {
                    connectionClosed(disconnection.connectionHandle)
                }
            }
        } catch {
            recordMalformed(error)
        }
    }

    private func deliver(_ event: HCIEvent, at time: HostTime) {
        let observers = state.withLock { $0.observers }
        for observer in observers { observer.handler(event, time) }
    }

    func recordMalformed(_ error: HCIError) {
        state.withLock { s in
            s.counters.malformedEvents += 1
            s.lastMalformed = error
        }
        logger.warning("malformed event dropped", metadata: ["error": "\(error)"])
    }
}
