import Synchronization
import Testing
import StrobeHCI

/// The receive path's lock-free view of handlers and tables: readers see a whole value, and a
/// replaced value lives exactly as long as a reader may hold it.
@Suite struct PublishedReferenceTests {
    final class Table: Sendable {
        let id: Int
        let copies: [Int]
        init(_ id: Int) {
            self.id = id
            copies = Array(repeating: id, count: 8)
        }
    }

    @Test func aReplacedValueIsReleasedWhenNoReaderHoldsIt() {
        let published = PublishedReference(Table(1))
        weak let first = published.value
        #expect(first?.id == 1)
        published.replace(with: Table(2))
        #expect(first == nil)
        #expect(published.value?.id == 2)
        published.replace(with: nil)
        #expect(published.value == nil)
    }

    @Test func aValueReplacedDuringAReadLivesUntilTheReadEnds() {
        let published = PublishedReference(Table(1))
        weak var first: Table?
        published.read { table in
            first = table
            published.replace(with: Table(2))
            // Still in use here: not released.
            #expect(first?.id == 1)
            #expect(table?.copies == Array(repeating: 1, count: 8))
        }
        #expect(first != nil)
        // The next replacement, with no reader inside, releases everything retired.
        published.replace(with: Table(3))
        #expect(first == nil)
    }

    @Test func deinitReleasesTheCurrentAndTheRetired() {
        weak var current: Table?
        weak var retired: Table?
        do {
            let published = PublishedReference(Table(1))
            published.read { table in
                retired = table
                published.replace(with: Table(2))
            }
            current = published.value
            #expect(retired != nil && current != nil)
        }
        #expect(retired == nil && current == nil)
    }

    @Test func readersAlwaysSeeAWholeValueWhileWritersReplaceIt() async {
        final class Shared: Sendable { let reference = PublishedReference(Table(0)) }
        let shared = Shared()
        final class Count: Sendable { let value = Atomic<Int>(0) }
        let torn = Count()
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<2 {
                group.addTask {
                    for index in 0..<5_000 { shared.reference.replace(with: Table(writer * 10_000 + index)) }
                }
            }
            for _ in 0..<2 {
                group.addTask {
                    for _ in 0..<20_000 {
                        shared.reference.read { table in
                            guard let table else { return }
                            if table.copies.contains(where: { $0 != table.id }) { torn.value.add(1, ordering: .relaxed) }
                        }
                    }
                }
            }
        }
        #expect(torn.value.load(ordering: .relaxed) == 0)
        #expect(shared.reference.value.map { $0.id % 10_000 } == 4_999)
    }
}
