import Logging
extension HCIController {
    /// Sends a command and waits for its Command Complete (returning the decoded return
    /// parameters) or, for commands answered by Command Status, for that status.
    /// Throws `HCIError.commandFailed` for a non-zero status; when it does not end within
    /// `timeout` (default: the configuration's) of being queued, `.commandTimeout` (written, no
    /// answer) or `.noCommandCredits` (never written); `.closed` when the transport ends first,
    /// and `CancellationError` when the calling task is cancelled (a command already written
    /// still runs to its answer, which is then dropped).
    @discardableResult
    package func send<C: HCICommand>(_ command: C, timeout: Duration? = nil) async throws -> C.ReturnParameters {
        let answer: HCICommandAnswer
        do {
            answer = try await submit(
                opcode: C.opcode, completion: C.completion, packet: command.packet,
                timeout: timeout ?? configuration.commandTimeout)
        } catch let error as HCIError {
            switch error {
            case .commandTimeout, .noCommandCredits: logger.warning("command timed out", metadata: ["error": "\(error)"])
            default: break
            }
            throw error
        }
        switch answer {
        case .status(let status):
            guard status.isSuccess else { throw HCIError.commandFailed(C.opcode, status) }
            var reader = HCIFieldReader(UnsafeRawBufferPointer(start: nil, count: 0), packet: "Command Status")
            return try decode(C.self, &reader)
        case .complete(let returnParameters):
            return try returnParameters.withUnsafeBytes { bytes in
                var reader = HCIFieldReader(bytes, packet: "Command Complete for \(C.opcode)")
                let status: HCIStatus
                do throws(HCIError) {
                    status = HCIStatus(rawValue: try reader.u8("Status"))
                } catch {
                    recordMalformed(error)
                    throw error
                }
                guard status.isSuccess else { throw HCIError.commandFailed(C.opcode, status) }
                return try decode(C.self, &reader)
            }
        }
    }

    private func decode<C: HCICommand>(_: C.Type, _ reader: inout HCIFieldReader) throws -> C.ReturnParameters {
        do throws(HCIError) {
            return try C.decodeReturnParameters(&reader)
        } catch {
            recordMalformed(error)
            throw error
        }
    }

    private func submit(opcode: HCIOpcode, completion: HCICommandCompletion, packet: [UInt8],
                        timeout: Duration) async throws -> HCICommandAnswer {
        let waiter = Waiter<HCICommandAnswer>()
        let now = timer.now
        let refused = state.withLock { s -> [HCICommandFlow<Waiter<HCICommandAnswer>>.Completion] in
            if case .idle = s.phase { return [.init(token: waiter, result: .failure(.notOpen))] }
            defer { timer.schedule(s.nextDeadline) }
            return s.commands.enqueue(waiter, opcode: opcode, completion: completion, packet: packet, now: now, timeout: timeout)
        }
        finish(refused)
        drainCommandQueue()
        return try await waiter.wait { [weak self] in
            guard let self else { return }
            state.withLock { s in
                s.commands.cancel(waiter)
                timer.schedule(s.nextDeadline)
            }
        }
    }

    /// Writes the commands the flow grants, in its order. One caller at a time drains; a call
    /// made while another drains (including from inside `transport.send`, when the answer comes
    /// back synchronously) returns at once and the drainer picks its work up.
    func drainCommandQueue() {
        let claimed = state.withLock { s -> Bool in
            if s.draining { return false }
            s.draining = true
            return true
        }
        guard claimed else { return }
        while true {
            let next = state.withLock { s -> (id: UInt64, packet: [UInt8])? in
                guard let next = s.commands.takeWrite() else {
                    s.draining = false
                    return nil
                }
                return next
            }
            guard let next else { return }
            do {
                try transport.send(next.packet)
            } catch {
                let failed = state.withLock { s in
                    s.commands.writeFailed(id: next.id, error: .transport(error))
                }
                finish(failed)
            }
        }
    }

    /// Command Complete or Command Status.
    func commandAnswered(opcode: HCIOpcode, credits: UInt8, status: HCIStatus?, returnParameters: UnsafeRawBufferPointer) {
        let ended = state.withLock { s in
            defer { timer.schedule(s.nextDeadline) }
            return s.commands.answered(opcode: opcode, credits: credits, status: status, returnParameters: Array(returnParameters))
        }
        finish(ended)
        drainCommandQueue()
    }
}
