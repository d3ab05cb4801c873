import StrobeHCI
import StrobeSecurity
import Synchronization

/// Where bonds are kept. Every failure is a `BondStoreError` naming the store; none carries a
/// key.
public protocol BondStore: Sendable {
    func bonds() throws(BondStoreError) -> [Bond]
    /// Adds the bond, replacing one for the same peer.
    func save(_ bond: Bond) throws(BondStoreError)
    /// Adds the bond only if the one stored for the same peer is still `expected` (`nil`: none),
    /// in one step; returns whether it did.
    func save(_ bond: Bond, replacing expected: Bond?) throws(BondStoreError) -> Bool
    /// Removes the peer's bond; returns whether there was one.
    @discardableResult func removeBond(for peer: BluetoothAddress) throws(BondStoreError) -> Bool
    func removeAll() throws(BondStoreError)
    /// This host's IRK, made and kept on first use, so peers keep recognising its private
    /// addresses.
    func localIRK() throws(BondStoreError) -> IdentityResolvingKey
    /// Checks, before pairing, that a bond could be read and stored now.
    func verify() throws(BondStoreError)
}

extension BondStore {
    /// The bond for a peer seen at `address`: by identity, or through its IRK.
    public func bond(for address: BluetoothAddress, type: LEAddressType) throws(BondStoreError) -> Bond? {
        try bonds().first { $0.matches(address, type: type) }
    }
}

/// Bonds for the life of the process.
public final class InMemoryBondStore: BondStore {
    private let state: Mutex<(bonds: [Bond], irk: IdentityResolvingKey)>

    public init(bonds: [Bond] = [], localIRK: IdentityResolvingKey = .random()) {
        state = Mutex((bonds, localIRK))
    }

    public func bonds() -> [Bond] { state.withLock { $0.bonds } }

    public func save(_ bond: Bond) {
        state.withLock { s in
            s.bonds.removeAll { $0.peer.address == bond.peer.address }
            s.bonds.append(bond)
        }
    }

    public func save(_ bond: Bond, replacing expected: Bond?) -> Bool {
        state.withLock { s in
            guard s.bonds.first(where: { $0.peer.address == bond.peer.address }) == expected else { return false }
            s.bonds.removeAll { $0.peer.address == bond.peer.address }
            s.bonds.append(bond)
            return true
        }
    }

    @discardableResult
    public func removeBond(for peer: BluetoothAddress) -> Bool {
        state.withLock { s in
            let before = s.bonds.count
            s.bonds.removeAll { $0.peer.address == peer }
            return s.bonds.count != before
        }
    }

    public func removeAll() { state.withLock { $0.bonds.removeAll() } }

    public func localIRK() -> IdentityResolvingKey { state.withLock { $0.irk } }

    public func verify() {}
}

/// Why the bond store could not be used. Names the file and what failed, never a key.
public enum BondStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case corrupt(path: String, reason: String)
    case unwritable(path: String, reason: String)
    /// The store's path names something other than a regular file (`kind`: a symbolic link, a
    /// directory, a FIFO, ...). A link is refused, not followed: it could send keys elsewhere.
    case notAFile(path: String, kind: String)
    /// Another process held the store's lock past the deadline.
    case locked(path: String, waited: Duration)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "the bond store \(path) cannot be read: \(reason)"
        case .corrupt(let path, let reason): "the bond store \(path) is corrupt: \(reason); fix or remove it (it is not reset)"
        case .unwritable(let path, let reason): "the bond store \(path) cannot be written: \(reason)"
        case .notAFile(let path, let kind): "the bond store \(path) is \(kind), not a regular file; give the path of a file"
        case .locked(let path, let waited): "the bond store \(path) stayed locked by another process for \(waited)"
        }
    }
}
