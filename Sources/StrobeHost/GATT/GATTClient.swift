import StrobeHCI
import StrobeBase
import Synchronization

/// The GATT client of one connection (Vol 3, Part G, 4): discovery, reads, writes,
/// subscriptions, and a cached database kept in step with Service Changed indications.
/// Procedures may run concurrently; the bearer sends their requests one at a time.
public final class GATTClient: Sendable {
    package let bearer: ATTBearer
    /// Cache events (Service Changed). Single consumer; the newest 16 are kept when unread.
    package let databaseEvents: AsyncStream<GATTDatabaseEvent>
    let events: AsyncStream<GATTDatabaseEvent>.Continuation
    let state = Lock(State())

    struct State {
        var database: GATTDatabase?
        var longWriteInProgress = false
        /// Rediscoveries run one after another, in the order the indications came.
        var refresh: Task<Void, Never>?
        var serviceChangedHandle: AttributeHandle?
        var subscribeToServiceChanged = false
        var malformedServiceChanged: UInt64 = 0
        var onRediscovered: (@Sendable (GATTDatabase) -> Void)?
    }

    /// Whether a long write (Prepare Write Requests, then Execute) is under way.
    package var isLongWriteInProgress: Bool { state.withLock { $0.longWriteInProgress } }

    package init(bearer: ATTBearer) {
        self.bearer = bearer
        (databaseEvents, events) = AsyncStream.makeStream(of: GATTDatabaseEvent.self, bufferingPolicy: .bufferingNewest(16))
    }

    deinit {
        events.finish()
    }

    /// The cached database, nil before `discoverDatabase()`. While a rediscovery runs it lacks
    /// the invalidated services.
    public var database: GATTDatabase? { state.withLock { $0.database } }

    /// Service Changed indications whose value was not a 4-byte handle range.
    public var malformedServiceChangedCount: UInt64 { state.withLock { $0.malformedServiceChanged } }

    /// Waits until the rediscoveries started by Service Changed indications so far are done.
    public func waitForRediscovery() async {
        let task = state.withLock { $0.refresh }
        await task?.value
    }

    /// Exchanges the MTU (once per connection) and returns the one in effect.
    @discardableResult
    public func exchangeMTU() async throws(StrobeError) -> Int { try await filingErrors { try await bearer.exchangeMTU() } }
}
