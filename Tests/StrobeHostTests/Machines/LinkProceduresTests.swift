import StrobeHCI
import Testing
import StrobeHost

/// A link's procedures, driven by scripted inputs: no controller, no clock, no tasks.
@Suite struct LinkProceduresTests {
    typealias Machine = LinkProcedures<Int>

    @Test func aProcedureArmsItsDeadlineOnceItsCommandWasTakenAndEndsWithTheEvent() {
        var machine = Machine()
        #expect(machine.begin(.parameterUpdate, for: 1) == nil)
        #expect(machine.isWaiting(.parameterUpdate))
        #expect(machine.commandTaken(.parameterUpdate, for: 1) == [.arm(.parameterUpdate)])
        #expect(machine.completed(.parameterUpdate, status: .success) == [.disarm(.parameterUpdate), .finish(1, .success(.success))])
        #expect(!machine.isWaiting(.parameterUpdate))
    }

    @Test func theControllersRefusalReachesTheCaller() {
        var machine = Machine()
        _ = machine.begin(.phyUpdate, for: 1)
        _ = machine.commandTaken(.phyUpdate, for: 1)
        #expect(machine.completed(.phyUpdate, status: .unsupportedRemoteFeature)
            == [.disarm(.phyUpdate), .finish(1, .success(.unsupportedRemoteFeature))])
    }

    @Test func oneOfEachKindAtATime() {
        var machine = Machine()
        _ = machine.begin(.parameterUpdate, for: 1)
        #expect(machine.begin(.parameterUpdate, for: 2) == .finish(2, .failure(.busy)))
        #expect(machine.begin(.phyUpdate, for: 3) == nil, "another kind may go beside it")
    }

    @Test func anEventBeforeTheCommandsAnswerArmsNothing() {
        var machine = Machine()
        _ = machine.begin(.parameterUpdate, for: 1)
        _ = machine.completed(.parameterUpdate, status: .success)
        #expect(machine.commandTaken(.parameterUpdate, for: 1).isEmpty)
    }

    @Test func anEventNobodyWaitsForOnlyClearsTheDeadline() {
        var machine = Machine()
        #expect(machine.completed(.parameterUpdate, status: .success) == [.disarm(.parameterUpdate)],
                "the peer's own update, or one whose caller gave up")
    }

    @Test func aWithdrawnProcedureFreesItsKind() {
        var machine = Machine()
        _ = machine.begin(.parameterUpdate, for: 1)
        #expect(machine.withdraw(.parameterUpdate, for: 2).isEmpty, "only the waiting caller withdraws")
        #expect(machine.withdraw(.parameterUpdate, for: 1) == [.disarm(.parameterUpdate)])
        #expect(machine.begin(.parameterUpdate, for: 2) == nil)
    }

    @Test func aProcedureTheControllerNeverReportsTimesOut() {
        var machine = Machine()
        _ = machine.begin(.phyUpdate, for: 1)
        _ = machine.commandTaken(.phyUpdate, for: 1)
        #expect(machine.timedOut(.phyUpdate) == [.finish(1, .failure(.timedOut))])
        #expect(machine.timedOut(.phyUpdate).isEmpty)
        #expect(machine.begin(.phyUpdate, for: 2) == nil)
    }

    @Test func theLinksEndFailsEveryProcedureAndEveryLaterOne() {
        var machine = Machine()
        _ = machine.begin(.parameterUpdate, for: 1)
        _ = machine.begin(.phyUpdate, for: 2)
        #expect(machine.linkClosed() == [.disarm(.parameterUpdate), .finish(1, .failure(.disconnected)),
                                         .disarm(.phyUpdate), .finish(2, .failure(.disconnected))])
        #expect(machine.begin(.parameterUpdate, for: 3) == .finish(3, .failure(.disconnected)))
    }

    @Test func parametersTheLinkHasAreNotAskedFor() {
        let inUse = LEConnectionParametersInUse(interval: 24, latency: 0, supervisionTimeout: 400)
        #expect(Machine.plan(LEConnectionParameters(intervalMin: 24, intervalMax: 40, maxLatency: 0, supervisionTimeout: 400), inUse: inUse) == .inUse)
        #expect(Machine.plan(LEConnectionParameters(intervalMin: 6, intervalMax: 12, maxLatency: 0, supervisionTimeout: 400), inUse: inUse)
            == .connectionUpdate)
        #expect(Machine.plan(LEConnectionParameters(intervalMin: 24, intervalMax: 24, maxLatency: 2, supervisionTimeout: 400), inUse: inUse)
            == .connectionUpdate)
        #expect(Machine.plan(LEConnectionParameters(intervalMin: 24, intervalMax: 24, maxLatency: 0, supervisionTimeout: 600), inUse: inUse)
            == .connectionUpdate)
    }

    @Test func aPeripheralWithoutTheLinkLayersProcedureFallsBackToSignaling() {
        for status: HCIStatus in [.unknownHCICommand, .commandDisallowed, .unsupportedRemoteFeature] {
            #expect(Machine.fallsBackToSignaling(role: .peripheral, commandStatus: status, completeStatus: nil))
            #expect(!Machine.fallsBackToSignaling(role: .central, commandStatus: status, completeStatus: nil), "a central updates the link itself")
        }
        #expect(Machine.fallsBackToSignaling(role: .peripheral, commandStatus: nil, completeStatus: .unsupportedRemoteFeature))
        #expect(!Machine.fallsBackToSignaling(role: .peripheral, commandStatus: nil, completeStatus: .unacceptableConnectionParameters),
                "the central refused: asking again another way is not the answer")
        #expect(!Machine.fallsBackToSignaling(role: .peripheral, commandStatus: .invalidHCICommandParameters, completeStatus: nil))
    }
}
