import Dispatch
import Foundation
import Testing
import StrobeHCI

/// What blocks (a bond store's lock and file) runs on a thread of its own, never on one of the
/// few threads of Swift's cooperative pool.
@Suite struct ThreadOfItsOwnTests {
    struct Refused: Error, Equatable { let code: Int }

    /// More blocked callers than the pool has threads, each waiting until all have arrived: work
    /// run on the pool would hold every thread and never finish.
    @Test(.timeLimit(.minutes(1)))
    func blockedWorkHoldsNoThreadOfThePool() async {
        let count = ProcessInfo.processInfo.activeProcessorCount * 2 + 2
        let arrived = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        let total = await withTaskGroup(of: Int.self) { group in
            for index in 0..<count {
                group.addTask {
                    await onThreadOfItsOwn {
                        arrived.signal()
                        released.wait()
                        return index
                    }
                }
            }
            group.addTask {
                await onThreadOfItsOwn {
                    for _ in 0..<count { arrived.wait() }
                    for _ in 0..<count { released.signal() }
                    return 0
                }
            }
            return await group.reduce(0, +)
        }
        #expect(total == count * (count - 1) / 2)
    }

    @Test func theWorksErrorReachesTheCaller() async {
        await #expect(throws: Refused(code: 7)) {
            try await onThreadOfItsOwn { () throws(Refused) -> Int in throw Refused(code: 7) }
        }
    }
}
