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
        let waiter = submit(command, timeout: timeout)
        let answer: HCICommandAnswer
        do {
            answer = try await waiter.wait { [weak self] in
                guard let self else { return }
                state.withLock { s in
                    s.commands.cancel(waiter)
                    timer.schedule(s.nextDeadline)
                }
            }
        } catch let error as HCIError {
            logTimeout(error)
            throw error
        }
        return try outcome(of: C.self, answer)
    }

    /// Sends a command without waiting for it: `then` gets what `send` would return or throw,
    /// on the thread that learns it (the reader's for an answer, the timer's for a timeout, the
    /// caller's when refused at once), so it must not block. For owners that act from threads
    /// that cannot wait (events, timers): the command's failure goes back to them through `then`.
    package func post<C: HCICommand>(_ command: C, timeout: Duration? = nil,
                                     then: @escaping @Sendable (Result<C.ReturnParameters, HCIError>) -> Void) {
        submit(command, timeout: timeout).whenResolved { [weak self] answer in
            guard let self else { return then(.failure(.closed(nil))) }
            do throws(HCIError) {
                switch answer {
                case .success(let answer): then(.success(try outcome(of: C.self, answer)))
                // The flow fails a command with an HCIError only; nobody waits, so none is cancelled.
                case .failure(let error): throw (error as? HCIError) ?? HCIError.closed(nil)
                }
            } catch {
                logTimeout(error)
                then(.failure(error))
            }
        }
    }

    private func logTimeout(_ error: HCIError) {
        switch error {
        case .commandTimeout, .noCommandCredits: logger.warning("command timed out", metadata: ["error": "\(error)"])
        default: break
        }
    }

    /// The command's return parameters from its answer, or the status it failed with.
    private func outcome<C: HCICommand>(of _: C.Type, _ answer: HCICommandAnswer) throws(HCIError) -> C.ReturnParameters {
        switch answer {
        case .status(let status):
            guard status.isSuccess else { throw HCIError.commandFailed(C.opcode, status) }
            return try decode(C.self, UnsafeRawBufferPointer(start: nil, count: 0), packet: "Command Status")
        case .complete(let returnParameters):
            // Array's withUnsafeBytes throws untyped: the outcome comes out as a Result.
            return try returnParameters.withUnsafeBytes { bytes in
                Result { () throws(HCIError) -> C.ReturnParameters in
                    let packet = "Command Complete for \(C.opcode)"
                    var reader = HCIFieldReader(bytes, packet: packet)
                    let status: HCIStatus
                    do throws(HCIError) {
                        status = HCIStatus(rawValue: try reader.u8("Status"))
                    } catch {
                        recordMalformed(error)
                        throw error
                    }
                    guard status.isSuccess else { throw HCIError.commandFailed(C.opcode, status) }
                    return try decode(C.self, UnsafeRawBufferPointer(rebasing: bytes.dropFirst()), packet: packet)
                }
            }.get()
        }
    }

    /// The return parameters after Status, from their description. Bytes past them are ignored,
    /// as in events: a later version of the specification may append some.
    private func decode<C: HCICommand>(_: C.Type, _ bytes: UnsafeRawBufferPointer, packet: String) throws(HCIError) -> C.ReturnParameters {
        do throws(HCIError) {
            return try C.ReturnParameters(decoding: bytes, packet: packet, extensible: true)
        } catch {
            recordMalformed(error)
            throw error
        }
    }

    /// Queues the command in the flow and writes what the flow grants; the waiter gets its answer.
    private func submit<C: HCICommand>(_ command: C, timeout: Duration?) -> Waiter<HCICommandAnswer> {
        let waiter = Waiter<HCICommandAnswer>()
        let now = timer.now
        let refused = state.withLock { s -> [HCICommandFlow<Waiter<HCICommandAnswer>>.Completion] in
            if case .idle = s.phase { return [.init(token: waiter, result: .failure(.notOpen))] }
            defer { timer.schedule(s.nextDeadline) }
            return s.commands.enqueue(waiter, opcode: C.opcode, completion: C.completion, packet: command.packet, now: now,
                                      timeout: timeout ?? configuration.commandTimeout)
        }
        finish(refused)
        drainCommandQueue()
        return waiter
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
