/// How the controller answered a command.
package enum HCICommandAnswer: Sendable, Equatable {
    /// Command Complete: the return parameters, status byte first.
    case complete([UInt8])
    /// Command Status with its status.
    case status(HCIStatus)
}

/// HCI command flow control (Core Specification Vol 4, Part E, 4.4) as a state machine that does
/// no I/O and reads no clock. Commands queue in order, are written while the controller grants
/// Num_HCI_Command_Packets, and each ends exactly once: with its Command Complete or Command
/// Status, its deadline (counted from when it was queued), a failed write, cancellation or close.
///
/// The owner feeds it inputs with the time they happened, writes what `takeWrite()` hands out
/// (in that order, one writer at a time), resolves the tokens of the `Completion`s it returns,
/// and wakes it at `nextDeadline`.
package struct HCICommandFlow<Token: Equatable> {
    package typealias Answer = HCICommandAnswer

    package struct Completion {
        package var token: Token
        package var result: Result<Answer, HCIError>
    }

    package struct Command {
        /// Numbers the commands in the order they were queued.
        package var id: UInt64
        package var token: Token?
        package var opcode: HCIOpcode
        package var completion: HCICommandCompletion
        package var packet: [UInt8]
        package var queuedAt: Duration
        package var deadline: Duration
    }

    /// Num_HCI_Command_Packets less the commands written since: one until the controller says.
    package private(set) var credits = 1
    /// Waiting for a credit, in order.
    package private(set) var queued: [Command] = []
    /// Handed to the writer, not yet answered. A cancelled caller leaves its entry (token nil)
    /// so that the answer is still matched.
    package private(set) var inFlight: [Command] = []
    /// Granted a credit, not yet taken by the writer.
    private var writes: [Command] = []
    private var nextID: UInt64 = 0
    package private(set) var closedWith: HCIError?
    package private(set) var commandsSent = 0
    package private(set) var commandTimeouts = 0
    /// Answers for an opcode no command was waiting for (NOPs excluded).
    package private(set) var unexpectedAnswers = 0

    package init() {}

    /// No command queued, being written or awaiting its answer.
    package var isIdle: Bool { queued.isEmpty && writes.isEmpty && inFlight.isEmpty }

    /// The earliest deadline of a command not yet ended.
    package var nextDeadline: Duration? {
        (queued + writes + inFlight).filter { $0.token != nil }.map(\.deadline).min()
    }

    /// Queues a command. It fails at once when the flow is closed.
    package mutating func enqueue(
        _ token: Token, opcode: HCIOpcode, completion: HCICommandCompletion, packet: [UInt8],
        now: Duration, timeout: Duration
    ) -> [Completion] {
        if let closedWith { return [Completion(token: token, result: .failure(closedWith))] }
        nextID &+= 1
        queued.append(Command(id: nextID, token: token, opcode: opcode, completion: completion, packet: packet,
                              queuedAt: now, deadline: now + timeout))
        grant()
        return []
    }

    /// The next command to write, in order; it counts as in flight from now.
    package mutating func takeWrite() -> (id: UInt64, packet: [UInt8])? {
        guard !writes.isEmpty else { return nil }
        let command = writes.removeFirst()
        inFlight.append(command)
        commandsSent += 1
        return (command.id, command.packet)
    }

    /// Command Complete or Command Status: the credits it carries (NOPs included), and the end of
    /// the oldest command in flight with that opcode. `status` is nil for Command Complete.
    package mutating func answered(
        opcode: HCIOpcode, credits: UInt8, status: HCIStatus?, returnParameters: [UInt8]
    ) -> [Completion] {
        guard closedWith == nil else { return [] }
        self.credits = Int(credits)
        var ended: [Completion] = []
        if opcode != .nop {
            if let index = inFlight.firstIndex(where: { $0.opcode == opcode }) {
                // A command that completes with Command Complete may get a Command Status first
                // (some controllers do); only a failure status ends it.
                let passing = status.map { $0.isSuccess && inFlight[index].completion == .commandComplete } ?? false
                if !passing {
                    let command = inFlight.remove(at: index)
                    if let token = command.token {
                        let answer: Answer = status.map { .status($0) } ?? .complete(returnParameters)
                        ended.append(Completion(token: token, result: .success(answer)))
                    }
                }
            } else {
                unexpectedAnswers += 1
            }
        }
        grant()
        return ended
    }

    /// The transport refused a write: the controller never saw the command, so its credit is ours.
    package mutating func writeFailed(id: UInt64, error: HCIError) -> [Completion] {
        guard let index = inFlight.firstIndex(where: { $0.id == id }) else { return [] }
        let command = inFlight.remove(at: index)
        credits += 1
        grant()
        return command.token.map { [Completion(token: $0, result: .failure(error))] } ?? []
    }

    /// The caller gave up: a queued command is withdrawn unsent; one already written stays in
    /// flight, without a caller, so that its answer is matched and its credit counted.
    package mutating func cancel(_ token: Token) {
        if let index = queued.firstIndex(where: { $0.token == token }) {
            queued.remove(at: index)
        } else if let index = writes.firstIndex(where: { $0.token == token }) {
            writes[index].token = nil
        } else if let index = inFlight.firstIndex(where: { $0.token == token }) {
            inFlight[index].token = nil
        }
    }

    /// Ends every command whose deadline has passed. A written command's answer is taken as lost:
    /// one credit is assumed, so that the queue moves on.
    package mutating func expire(now: Duration) -> [Completion] {
        var ended: [Completion] = []
        queued.removeAll { command in
            guard command.deadline <= now, let token = command.token else { return false }
            commandTimeouts += 1
            ended.append(Completion(token: token, result: .failure(
                .noCommandCredits(command.opcode, after: now - command.queuedAt))))
            return true
        }
        for index in inFlight.indices.reversed() where inFlight[index].deadline <= now {
            let command = inFlight.remove(at: index)
            commandTimeouts += 1
            credits = max(credits, 1)
            if let token = command.token {
                ended.append(Completion(token: token, result: .failure(
                    .commandTimeout(command.opcode, after: now - command.queuedAt))))
            }
        }
        grant()
        return ended
    }

    /// Every command not yet ended fails with `error`; later ones fail at once.
    package mutating func close(_ error: HCIError) -> [Completion] {
        guard closedWith == nil else { return [] }
        closedWith = error
        let all = queued + writes + inFlight
        queued = []
        writes = []
        inFlight = []
        return all.compactMap { command in command.token.map { Completion(token: $0, result: .failure(error)) } }
    }

    /// Moves queued commands to the writer while credits last.
    private mutating func grant() {
        while credits > 0, !queued.isEmpty, closedWith == nil {
            credits -= 1
            writes.append(queued.removeFirst())
        }
    }
}

extension HCICommandFlow: Sendable where Token: Sendable {}
extension HCICommandFlow.Completion: Sendable where Token: Sendable {}
extension HCICommandFlow.Command: Sendable where Token: Sendable {}
