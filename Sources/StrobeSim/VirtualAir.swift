import StrobeHCI
import StrobeBase
import Synchronization

/// The radio between virtual controllers: advertising reaches the scanners, connection requests
/// reach advertisers, and ACL data crosses each connection at its connection events. Latency,
/// jitter and loss come from one seeded generator, so a world replays the same way each time;
/// time comes from an injected clock (a `VirtualClock` in tests, real time for demos).
///
/// On the real clock the air and its controllers run on a thread of their own (a `HostLoop`'s),
/// as a radio and its controllers are hardware of their own: not on the app's cooperative pool,
/// where an app busy there, or a test that holds it, would stall the whole world.
package final class VirtualAir: Sendable {
    package let clock: any Clock<Duration>
    /// The air's thread; without one (a virtual clock) its tasks run where tasks run.
    private let loop: HostLoop
    private let origin: ContinuousClock.Instant
    private let elapsed: @Sendable () -> Duration
    private let state: Lock<State>

    struct Advertising {
        var interval: Duration = .milliseconds(100)
        var data: [UInt8] = []
        var scanResponse: [UInt8] = []
        var connectable = true
        var enabled = false
        var task: Task<Void, Never>?
        /// Own_Address_Type of LE Set Advertising Parameters: 0 public, 1 random.
        var ownAddressType: UInt8 = 0x01
    }

    struct Scanning {
        var active = false
        var enabled = false
        var ownAddressType: UInt8 = 0x00
    }

    struct Node {
        var controller: VirtualController
        var advertising = Advertising()
        var scanning = Scanning()
        /// LE Create Connection in progress: the advertiser asked for, and our own address type.
        var initiating: (address: BluetoothAddress, parameters: LEConnectionParameters, ownAddressType: UInt8)?
        var nextHandle: UInt16 = 0x0040
        var conditions = LinkConditions.perfect
        /// From LE Set Random Address.
        var randomAddress: BluetoothAddress?

        /// The address this node shows on the air with an own address type: its public one
        /// (the controller's) or the random one its host set.
        func airAddress(_ ownAddressType: UInt8) -> (address: BluetoothAddress, type: UInt8) {
            ownAddressType & 1 == 0 ? (controller.configuration.address, 0x00) : (randomAddress ?? controller.configuration.address, 0x01)
        }
    }

    final class Connection: @unchecked Sendable {
        // Mutated only under the air's lock.
        let central: Int
        let peripheral: Int
        let centralHandle: UInt16
        let peripheralHandle: UInt16
        var interval: UInt16
        var latency: UInt16
        var timeout: UInt16
        var queues: [Int: [[UInt8]]] = [:]  // by sending node: ACL payloads waiting for an event
        var missedEvents = 0
        var task: Task<Void, Never>?
        var delivery: [Int: AsyncStream<(Duration, [UInt8], Int)>.Continuation] = [:]
        var lastDelivery: [Int: Duration] = [:]
        /// LE Enable Encryption waiting for the peripheral host's key, and whether the link is
        /// encrypted.
        var encryptionKey: [UInt8]?
        var encrypted = false
        /// A host asked to disconnect: the link ends once what that side queued has crossed
        /// (the link layer sends pending data before it terminates).
        var terminating: (initiator: Int, reason: HCIStatus)?
        /// The peripheral's host asked for new parameters (LE Connection Update): the link layer's
        /// Connection Parameters Request waits for the central host's reply until `deadline`.
        var parameterRequest: (parameters: LEConnectionParameters, deadline: Duration)?

        init(central: Int, peripheral: Int, centralHandle: UInt16, peripheralHandle: UInt16, parameters: LEConnectionParameters) {
            self.central = central
            self.peripheral = peripheral
            self.centralHandle = centralHandle
            self.peripheralHandle = peripheralHandle
            interval = parameters.intervalMin
            latency = parameters.maxLatency
            timeout = parameters.supervisionTimeout
        }

        func handle(for node: Int) -> UInt16 { node == central ? centralHandle : peripheralHandle }

        struct Parameters {
            var interval: UInt16
            var latency: UInt16
            var timeout: UInt16
        }

        /// Read with the air's lock held, like every other field.
        var parameters: Parameters { Parameters(interval: interval, latency: latency, timeout: timeout) }
        func peer(of node: Int) -> Int { node == central ? peripheral : central }
    }

    struct State {
        var nodes: [Int: Node] = [:]
        var nextID = 1
        var connections: [Connection] = []
        var random: SeededGenerator
        var conditions: [Set<Int>: LinkConditions] = [:]
        var counters = VirtualAirCounters()
    }

    /// `seed` fixes every random choice (advertising delays, jitter, loss).
    package init<C: Clock>(clock: C, seed: UInt64 = 1) where C.Duration == Duration {
        self.clock = clock
        origin = ContinuousClock.now
        let start = clock.now
        elapsed = { start.duration(to: clock.now) }
        state = Lock(State(random: SeededGenerator(seed: seed)))
        loop = HostLoop(clock: clock)
    }

    /// Where the air's and its controllers' tasks run: the air's thread, on the real clock.
    package var executor: (any TaskExecutor)? { loop.executor }

    /// A new controller in this air.
    package func addController(_ configuration: VirtualController.Configuration) -> VirtualController {
        state.withLock { s in
            let controller = VirtualController(air: self, id: s.nextID, configuration: configuration)
            s.nodes[s.nextID] = Node(controller: controller)
            s.nextID += 1
            return controller
        }
    }

    /// Conditions between two controllers (both directions; also their advertising).
    package func setConditions(_ conditions: LinkConditions, between a: VirtualController, and b: VirtualController) {
        state.withLock { $0.conditions[[a.id, b.id]] = conditions }
    }

    package var counters: VirtualAirCounters { state.withLock { $0.counters } }

    /// Host timestamps in the air's time (its clock's time since the air was made): what its
    /// controllers stamp received packets with, so that a virtual run is reproducible.
    package func hostTime() -> HostTime {
        let (seconds, attoseconds) = elapsed().components
        return HostTime(nanoseconds: UInt64(max(seconds, 0)) * 1_000_000_000 + UInt64(max(attoseconds, 0) / 1_000_000_000))
    }

    func remove(_ controller: VirtualController) {
        let tasks = state.withLock { s -> [Task<Void, Never>] in
            var tasks = dropConnections(of: controller.id, reason: .remoteUserTerminatedConnection, in: &s)
            if let task = s.nodes[controller.id]?.advertising.task { tasks.append(task) }
            s.nodes[controller.id] = nil
            return tasks
        }
        for task in tasks { task.cancel() }
    }

    // MARK: Commands

    func command(from controller: VirtualController, _ packet: [UInt8]) {
        guard packet.count >= 3 else { return }
        let opcode = UInt16(packet[0]) | UInt16(packet[1]) << 8
        let id = controller.id
        packet.withUnsafeBytes { raw in
            command(opcode, from: controller, id: id, parameters: UnsafeRawBufferPointer(rebasing: raw[3...]))
        }
    }

    /// Each command is taken through its one description (`HCICommand.walkParameters`), as the
    /// host encodes it and a capture shows it. Parameters that do not fit it are answered
    /// Invalid HCI Command Parameters, as a controller does, and counted.
    private func command(_ opcode: UInt16, from controller: VirtualController, id: Int, parameters: UnsafeRawBufferPointer) {
        func decoded<C: HCICommand>(_: C.Type) -> C? {
            do throws(HCIError) {
                return try C(decodingParameters: parameters)
            } catch {
                state.withLock { $0.counters.malformedCommands += 1 }
                if C.completion == .commandStatus {
                    status(controller, opcode, .invalidHCICommandParameters)
                } else {
                    complete(controller, opcode, status: .invalidHCICommandParameters)
                }
                return nil
            }
        }
        switch opcode {
        case HCIReset.opcode.rawValue:
            let tasks = state.withLock { s -> [Task<Void, Never>] in
                var tasks = dropConnections(of: id, reason: .connectionTerminatedByLocalHost, in: &s, notifySelf: false)
                if let task = s.nodes[id]?.advertising.task { tasks.append(task) }
                s.nodes[id]?.advertising = Advertising()
                s.nodes[id]?.scanning = Scanning()
                s.nodes[id]?.initiating = nil
                return tasks
            }
            for task in tasks { task.cancel() }
            complete(controller, opcode)
        case HCISetEventMask.opcode.rawValue:
            guard decoded(HCISetEventMask.self) != nil else { return }
            complete(controller, opcode)
        case HCILESetEventMask.opcode.rawValue:
            guard decoded(HCILESetEventMask.self) != nil else { return }
            complete(controller, opcode)
        case 0x0C63:  // Set Event Mask Page 2, which other hosts send
            complete(controller, opcode)
        case HCILESetRandomAddress.opcode.rawValue:
            guard let address = decoded(HCILESetRandomAddress.self)?.address else { return }
            // Not while legacy advertising, scanning or initiating is on (Vol 4, Part E, 7.8.4).
            let allowed = state.withLock { s -> Bool in
                guard let node = s.nodes[id], !node.advertising.enabled, !node.scanning.enabled, node.initiating == nil else { return false }
                s.nodes[id]?.randomAddress = address
                return true
            }
            complete(controller, opcode, status: allowed ? .success : .commandDisallowed)
        case HCIReadLocalVersionInformation.opcode.rawValue:  // HCI 5.3, company 0xFFFF (none)
            complete(controller, opcode, LocalVersionInformation(hciVersion: 0x0C, hciSubversion: 0, lmpVersion: 0x0C,
                                                                 companyIdentifier: 0xFFFF, lmpSubversion: 0))
        case HCIReadLocalSupportedCommands.opcode.rawValue:
            complete(controller, opcode, HCIReadLocalSupportedCommands.ReturnParameters(
                supportedCommands: HCISupportedCommands(octets: SimSupportedCommands.bitmap)))
        case HCIReadLocalSupportedFeatures.opcode.rawValue:  // LE supported, BR/EDR not supported
            complete(controller, opcode, HCIReadLocalSupportedFeatures.ReturnParameters(
                lmpFeatures: [.brEdrNotSupported, .leSupportedController]))
        case HCIReadBufferSize.opcode.rawValue:  // no BR/EDR buffers
            complete(controller, opcode, HCIReadBufferSize.ReturnParameters())
        case HCIReadBDAddr.opcode.rawValue:
            complete(controller, opcode, HCIReadBDAddr.ReturnParameters(bdAddr: controller.configuration.address))
        case HCILEReadBufferSizeV1.opcode.rawValue:
            let c = controller.configuration
            complete(controller, opcode, HCILEReadBufferSizeV1.ReturnParameters(LEBufferSize(
                leACLDataPacketLength: UInt16(truncatingIfNeeded: c.aclLength), totalNumLEACLDataPackets: UInt8(min(c.aclCount, 255)))))
        case HCILEReadLocalSupportedFeatures.opcode.rawValue:  // none of the optional ones
            complete(controller, opcode, HCILEReadLocalSupportedFeatures.ReturnParameters())
        case HCILESetAdvertisingParameters.opcode.rawValue:
            guard let command = decoded(HCILESetAdvertisingParameters.self) else { return }
            state.withLock { s in
                s.nodes[id]?.advertising.interval = .microseconds(Int64(max(command.intervalMin, 0x20)) * 625)
                s.nodes[id]?.advertising.connectable = command.advertisingType == .connectableUndirected
                s.nodes[id]?.advertising.ownAddressType = command.ownAddressType.rawValue
            }
            complete(controller, opcode)
        case HCILESetAdvertisingData.opcode.rawValue:
            guard let data = decoded(HCILESetAdvertisingData.self)?.data else { return }
            state.withLock { $0.nodes[id]?.advertising.data = data }
            complete(controller, opcode)
        case HCILESetScanResponseData.opcode.rawValue:
            guard let data = decoded(HCILESetScanResponseData.self)?.data else { return }
            state.withLock { $0.nodes[id]?.advertising.scanResponse = data }
            complete(controller, opcode)
        case HCILESetAdvertisingEnable.opcode.rawValue:
            guard let command = decoded(HCILESetAdvertisingEnable.self) else { return }
            setAdvertising(controller, enabled: command.enable)
            complete(controller, opcode)
        case HCILESetScanParameters.opcode.rawValue:
            guard let command = decoded(HCILESetScanParameters.self) else { return }
            let active = command.scanType == .active
            let ownAddressType = command.ownAddressType.rawValue
            // Not while scanning is enabled (Vol 4, Part E, 7.8.10).
            let allowed = state.withLock { s -> Bool in
                guard let node = s.nodes[id], !node.scanning.enabled else { return false }
                s.nodes[id]?.scanning.active = active
                s.nodes[id]?.scanning.ownAddressType = ownAddressType
                return true
            }
            complete(controller, opcode, status: allowed ? .success : .commandDisallowed)
        case HCILESetScanEnable.opcode.rawValue:
            guard let enabled = decoded(HCILESetScanEnable.self)?.enable else { return }
            // Scanning from a random address needs one (Vol 4, Part E, 7.8.11).
            let allowed = state.withLock { s -> Bool in
                guard let node = s.nodes[id] else { return false }
                if enabled, node.scanning.ownAddressType & 0x01 == 0x01, node.randomAddress == nil { return false }
                s.nodes[id]?.scanning.enabled = enabled
                return true
            }
            complete(controller, opcode, status: allowed ? .success : .invalidHCICommandParameters)
        case HCILECreateConnection.opcode.rawValue:
            guard let command = decoded(HCILECreateConnection.self) else { return }
            let (address, ownAddressType, parameters) = (command.peerAddress, command.ownAddressType.rawValue, command.connection)
            let busy = state.withLock { s -> Bool in
                if s.nodes[id]?.initiating != nil { return true }
                s.nodes[id]?.initiating = (address, parameters, ownAddressType)
                return false
            }
            status(controller, opcode, busy ? .commandDisallowed : .success)
        case HCILECreateConnectionCancel.opcode.rawValue:
            let was = state.withLock { s -> Bool in
                defer { s.nodes[id]?.initiating = nil }
                return s.nodes[id]?.initiating != nil
            }
            if was {
                complete(controller, opcode)
                controller.deliver(SimEvents.leConnectionComplete(status: .unknownConnectionIdentifier, handle: 0, role: .central,
                                                                  peer: controller.configuration.address, peerType: 0, interval: 0, latency: 0, timeout: 0))
            } else {
                complete(controller, opcode, status: .commandDisallowed)
            }
        case HCIDisconnect.opcode.rawValue:
            guard let command = decoded(HCIDisconnect.self) else { return }
            let (handle, reason) = (command.connectionHandle.rawValue, command.reason)
            let found = state.withLock { s -> (connection: Connection, drained: Bool)? in
                guard let c = s.connections.first(where: { $0.handle(for: id) == handle && ($0.central == id || $0.peripheral == id) }) else {
                    return nil
                }
                let drained = c.queues[id]?.isEmpty ?? true
                if !drained { c.terminating = (id, reason) }
                return (c, drained)
            }
            status(controller, opcode, found == nil ? .unknownConnectionIdentifier : .success)
            if let found, found.drained { disconnect(handle: handle, of: id, reason: reason) }
        case HCILEConnectionUpdate.opcode.rawValue:
            guard let command = decoded(HCILEConnectionUpdate.self) else { return }
            let (handle, parameters) = (command.connectionHandle.rawValue, command.connection)
            let now = elapsed()
            let requested = parameters
            // The central's controller updates the link at once; a peripheral's runs the Connection
            // Parameters Request procedure: the central's host is asked, and must answer in 40 s.
            let outcome = state.withLock { s -> (Connection, Connection.Parameters?, VirtualController?)? in
                guard let c = s.connections.first(where: { $0.handle(for: id) == handle && ($0.central == id || $0.peripheral == id) }) else { return nil }
                guard c.central == id else {
                    c.parameterRequest = (parameters, now + Self.procedureResponseTimeout)
                    return (c, nil, s.nodes[c.central]?.controller)
                }
                c.interval = parameters.intervalMax
                c.latency = parameters.maxLatency
                c.timeout = parameters.supervisionTimeout
                return (c, c.parameters, nil)
            }
            status(controller, opcode, outcome == nil ? .unknownConnectionIdentifier : .success)
            if let (connection, parameters, central) = outcome {
                if let parameters { connectionUpdated(connection, parameters) }
                central?.deliver(SimEvents.remoteConnectionParameterRequest(handle: connection.centralHandle, parameters: requested))
            }
        case HCILERemoteConnectionParameterRequestReply.opcode.rawValue, HCILERemoteConnectionParameterRequestNegativeReply.opcode.rawValue:
            // The central's host answers the peripheral's request.
            let handle: UInt16
            let reply: LEConnectionParameters?
            let reason: HCIStatus
            if opcode == HCILERemoteConnectionParameterRequestReply.opcode.rawValue {
                guard let command = decoded(HCILERemoteConnectionParameterRequestReply.self) else { return }
                (handle, reply, reason) = (command.connectionHandle.rawValue, command.connection, .success)
            } else {
                guard let command = decoded(HCILERemoteConnectionParameterRequestNegativeReply.self) else { return }
                (handle, reply, reason) = (command.connectionHandle.rawValue, nil, command.reason)
            }
            let found = state.withLock { s -> (Connection, VirtualController?)? in
                guard let c = s.connections.first(where: { $0.central == id && $0.centralHandle == handle }), c.parameterRequest != nil else {
                    return nil
                }
                c.parameterRequest = nil
                if let reply {
                    c.interval = reply.intervalMax
                    c.latency = reply.maxLatency
                    c.timeout = reply.supervisionTimeout
                }
                return (c, s.nodes[c.peripheral]?.controller)
            }
            complete(controller, opcode, HCIConnectionHandleReturnParameters(connectionHandle: ConnectionHandle(rawValue: handle)),
                     status: found == nil ? .unknownConnectionIdentifier : .success)
            if let (connection, peripheral) = found {
                if reply != nil {
                    connectionUpdated(connection, state.withLock { _ in connection.parameters })
                } else {
                    // Refused: only the peripheral's host hears of it, with the central's reason.
                    let current = state.withLock { _ in connection.parameters }
                    peripheral?.deliver(SimEvents.leConnectionUpdateComplete(
                        status: reason, handle: connection.peripheralHandle, interval: current.interval, latency: current.latency,
                        timeout: current.timeout))
                }
            }
        case HCILEEnableEncryption.opcode.rawValue:  // the central
            guard let command = decoded(HCILEEnableEncryption.self) else { return }
            let (handle, ediv, key) = (command.connectionHandle.rawValue, command.encryptedDiversifier, command.longTermKey)
            let random = command.random
            let found = state.withLock { s -> (Connection, VirtualController)? in
                guard let c = s.connections.first(where: { $0.central == id && $0.centralHandle == handle }),
                      let peripheral = s.nodes[c.peripheral]?.controller else { return nil }
                c.encryptionKey = key
                return (c, peripheral)
            }
            status(controller, opcode, found == nil ? .unknownConnectionIdentifier : .success)
            if let (connection, peripheral) = found {
                peripheral.deliver(SimEvents.longTermKeyRequest(handle: connection.peripheralHandle, random: random, ediv: ediv))
            }
        case HCILELongTermKeyRequestReply.opcode.rawValue, HCILELongTermKeyRequestNegativeReply.opcode.rawValue:  // the peripheral
            let handle: UInt16
            let key: [UInt8]?
            if opcode == HCILELongTermKeyRequestReply.opcode.rawValue {
                guard let command = decoded(HCILELongTermKeyRequestReply.self) else { return }
                (handle, key) = (command.connectionHandle.rawValue, command.longTermKey)
            } else {
                guard let command = decoded(HCILELongTermKeyRequestNegativeReply.self) else { return }
                (handle, key) = (command.connectionHandle.rawValue, nil)
            }
            complete(controller, opcode, HCIConnectionHandleReturnParameters(connectionHandle: ConnectionHandle(rawValue: handle)))
            answerEncryption(handle: handle, of: id, key: key)
        default:
            // Unknown HCI Command, never silence.
            state.withLock { $0.counters.unknownCommands += 1 }
            complete(controller, opcode, status: .unknownHCICommand)
        }
    }

    /// Command Complete, its return parameters encoded from their description.
    private func complete(_ controller: VirtualController, _ opcode: UInt16, _ returnParameters: some HCIParameters = HCINoReturnParameters(),
                          status: HCIStatus = .success) {
        controller.deliver(SimEvents.commandComplete(opcode: opcode, status: status, returnParameters: returnParameters.encodedParameters,
                                                     credits: credits(controller, opcode)))
    }

    private func status(_ controller: VirtualController, _ opcode: UInt16, _ status: HCIStatus) {
        controller.deliver(SimEvents.commandStatus(opcode: opcode, status: status, credits: credits(controller, opcode)))
    }

    /// The command credits an answer to `opcode` grants: none from a controller with that defect.
    private func credits(_ controller: VirtualController, _ opcode: UInt16) -> UInt8 {
        controller.configuration.withholdsCommandCreditsAfter == opcode ? 0 : 1
    }

    /// Whether the controller `id` has scanning enabled now.
    func isScanning(_ id: Int) -> Bool {
        state.withLock { $0.nodes[id]?.scanning.enabled ?? false }
    }

    // MARK: Advertising and scanning

    private func setAdvertising(_ controller: VirtualController, enabled: Bool) {
        let old = state.withLock { s -> Task<Void, Never>? in
            let old = s.nodes[controller.id]?.advertising.task
            s.nodes[controller.id]?.advertising.enabled = enabled
            s.nodes[controller.id]?.advertising.task = enabled ? advertisingTask(controller.id) : nil
            return old
        }
        old?.cancel()
    }

    private func advertisingTask(_ id: Int) -> Task<Void, Never> {
        Task(executorPreference: executor) { [weak self, clock] in
            while !Task.isCancelled {
                guard let wait = self?.nextAdvertisingDelay(id) else { return }
                do { try await clock.sleep(for: wait) } catch { return }
                self?.advertisingEvent(id)
            }
        }
    }

    /// The interval plus advDelay, a random 0-10 ms (Vol 6, Part B, 4.4.2.2).
    private func nextAdvertisingDelay(_ id: Int) -> Duration? {
        state.withLock { s in
            guard let advertising = s.nodes[id]?.advertising, advertising.enabled else { return nil }
            return advertising.interval + .microseconds(Int64(s.random.next() % 10_000))
        }
    }

    private func advertisingEvent(_ id: Int) {
        var deliveries: [(VirtualController, [UInt8])] = []
        var connect: (central: Int, parameters: LEConnectionParameters)?
        state.withLock { s in
            guard let advertiser = s.nodes[id], advertiser.advertising.enabled else { return }
            let (address, addressType) = advertiser.airAddress(advertiser.advertising.ownAddressType)
            s.counters.advertisingEvents += 1
            for (otherID, other) in s.nodes.sorted(by: { $0.key < $1.key }) where otherID != id {
                let conditions = s.conditions[[id, otherID]] ?? .perfect
                if s.random.chance(conditions.loss) { continue }
                if advertiser.advertising.connectable, connect == nil, let initiating = other.initiating, initiating.address == address {
                    connect = (otherID, initiating.parameters)
                    continue
                }
                guard other.scanning.enabled else { continue }
                let rssi = advertiser.controller.configuration.rssi
                let type: UInt8 = advertiser.advertising.connectable ? 0x00 : 0x03
                deliveries.append((other.controller, SimEvents.advertisingReport(
                    eventType: type, address: address, addressType: addressType, data: advertiser.advertising.data, rssi: rssi)))
                if other.scanning.active, !advertiser.advertising.scanResponse.isEmpty {
                    deliveries.append((other.controller, SimEvents.advertisingReport(
                        eventType: 0x04, address: address, addressType: addressType, data: advertiser.advertising.scanResponse, rssi: rssi)))
                }
            }
        }
        for (controller, report) in deliveries { controller.deliver(report) }
        if let connect { establish(central: connect.central, peripheral: id, parameters: connect.parameters) }
    }

    // MARK: Connections

    private func establish(central: Int, peripheral: Int, parameters: LEConnectionParameters) {
        typealias Formed = (Connection, VirtualController, VirtualController, Connection.Parameters,
                            (address: BluetoothAddress, type: UInt8), (address: BluetoothAddress, type: UInt8))
        let formed = state.withLock { s -> Formed? in
            guard let c = s.nodes[central], let p = s.nodes[peripheral], let initiating = c.initiating else { return nil }
            let centralAddress = c.airAddress(initiating.ownAddressType)
            let peripheralAddress = p.airAddress(p.advertising.ownAddressType)
            let connection = Connection(central: central, peripheral: peripheral, centralHandle: c.nextHandle,
                                        peripheralHandle: p.nextHandle, parameters: parameters)
            s.nodes[central]?.nextHandle += 1
            s.nodes[peripheral]?.nextHandle += 1
            s.nodes[central]?.initiating = nil
            // A connectable advertiser stops advertising once connected.
            s.nodes[peripheral]?.advertising.enabled = false
            s.nodes[peripheral]?.advertising.task?.cancel()
            s.nodes[peripheral]?.advertising.task = nil
            s.connections.append(connection)
            s.counters.connections += 1
            for node in [central, peripheral] {
                let (stream, continuation) = AsyncStream.makeStream(of: (Duration, [UInt8], Int).self)
                connection.delivery[node] = continuation
                startDelivery(stream)
            }
            connection.task = connectionTask(connection)
            return (connection, c.controller, p.controller, connection.parameters, centralAddress, peripheralAddress)
        }
        // The parameters as they were when the link formed, read under the lock.
        guard let (connection, c, p, parameters, centralAddress, peripheralAddress) = formed else { return }
        c.deliver(SimEvents.leConnectionComplete(status: .success, handle: connection.centralHandle, role: .central,
                                                 peer: peripheralAddress.address, peerType: peripheralAddress.type,
                                                 interval: parameters.interval, latency: parameters.latency, timeout: parameters.timeout))
        p.deliver(SimEvents.leConnectionComplete(status: .success, handle: connection.peripheralHandle, role: .peripheral,
                                                 peer: centralAddress.address, peerType: centralAddress.type,
                                                 interval: parameters.interval, latency: parameters.latency, timeout: parameters.timeout))
    }

    /// Delivers a direction's packets in order, each at its due time on the air's clock.
    private func startDelivery(_ stream: AsyncStream<(Duration, [UInt8], Int)>) {
        Task(executorPreference: executor) { [weak self, clock] in
            for await (due, packet, node) in stream {
                guard let self else { return }
                let wait = due - self.elapsed()
                if wait > .zero { try? await clock.sleep(for: wait) }
                self.state.withLock { $0.nodes[node]?.controller }?.deliver(packet)
            }
        }
    }

    private func connectionTask(_ connection: Connection) -> Task<Void, Never> {
        Task(executorPreference: executor) { [weak self, clock] in
            while !Task.isCancelled {
                guard let interval = self?.state.withLock({ _ in Duration.microseconds(Int64(connection.interval) * 1250) }) else { return }
                do { try await clock.sleep(for: interval) } catch { return }
                self?.connectionEvent(connection)
            }
        }
    }

    func acl(from controller: VirtualController, _ packet: [UInt8]) {
        guard packet.count >= 4 else { return }
        let handle = (UInt16(packet[0]) | UInt16(packet[1]) << 8) & 0x0FFF
        state.withLock { s in
            guard let connection = s.connections.first(where: {
                ($0.central == controller.id || $0.peripheral == controller.id) && $0.handle(for: controller.id) == handle
            }) else {
                s.counters.aclForUnknownHandles += 1
                return
            }
            connection.queues[controller.id, default: []].append(packet)
        }
    }

    /// One connection event: each side sends what it has queued (a few packets), each packet
    /// crossing or, when lost, staying queued for the next event; the sender's controller reports
    /// Number Of Completed Packets for what crossed. Too many events in a row with nothing
    /// crossing end the link with a supervision timeout.
    private func connectionEvent(_ connection: Connection) {
        var completions: [(VirtualController, UInt16, Int)] = []
        var timedOut = false
        state.withLock { s in
            guard s.connections.contains(where: { $0 === connection }) else { return }
            let now = elapsed()
            let conditions = s.conditions[[connection.central, connection.peripheral]] ?? .perfect
            var anyLost = false
            for sender in [connection.central, connection.peripheral] {
                var sent = 0
                var queue = connection.queues[sender] ?? []
                while sent < 4, let packet = queue.first {
                    if s.random.chance(conditions.loss) {
                        s.counters.retransmissions += 1
                        anyLost = true
                        break  // the link layer resends it at the next event, in order
                    }
                    queue.removeFirst()
                    sent += 1
                    let receiver = connection.peer(of: sender)
                    // The receiver's handle replaces the sender's.
                    var forwarded = packet
                    let flags = (UInt16(packet[0]) | UInt16(packet[1]) << 8) & 0xF000
                    let handle = connection.handle(for: receiver) | flags
                    forwarded[0] = UInt8(handle & 0xFF)
                    forwarded[1] = UInt8(handle >> 8)
                    let jitterRange = nanoseconds(conditions.jitter)
                    let jitter = jitterRange > 0 ? Duration.nanoseconds(Int64(s.random.next() % jitterRange)) : .zero
                    let due = max(now + conditions.latency + jitter, connection.lastDelivery[receiver] ?? .zero)
                    connection.lastDelivery[receiver] = due
                    connection.delivery[receiver]?.yield((due, [HCIPacketType.acl.rawValue] + forwarded, receiver))
                    s.counters.aclPacketsCarried += 1
                }
                connection.queues[sender] = queue
                if sent > 0, let controller = s.nodes[sender]?.controller {
                    completions.append((controller, connection.handle(for: sender), sent))
                }
            }
            // Supervision: a whole timeout's worth of events where something was lost and nothing crossed.
            if anyLost && completions.isEmpty {
                connection.missedEvents += 1
                // Timeout in 10 ms units, interval in 1.25 ms: rounded up, so the link never ends early.
                let interval = max(Int(connection.interval), 1)
                let eventsPerTimeout = max(1, (Int(connection.timeout) * 8 + interval - 1) / interval)
                timedOut = connection.missedEvents >= eventsPerTimeout
            } else {
                connection.missedEvents = 0
            }
        }
        for (controller, handle, count) in completions {
            controller.deliver(SimEvents.numberOfCompletedPackets(handle: handle, count: count))
        }
        // A Connection Parameters Request the central's host never answered ends the link.
        let unanswered = state.withLock { _ in connection.parameterRequest.map { $0.deadline <= elapsed() } ?? false }
        if timedOut {
            disconnect(connection, reason: .connectionTimeout, localReason: .connectionTimeout)
        } else if unanswered {
            disconnect(connection, reason: .lmpOrLLResponseTimeout, localReason: .lmpOrLLResponseTimeout)
        } else if let terminating = state.withLock({ _ in connection.terminating }),
                  state.withLock({ _ in connection.queues[terminating.initiator]?.isEmpty ?? true }) {
            disconnect(connection, reason: terminating.reason, localReason: .connectionTerminatedByLocalHost, initiator: terminating.initiator)
        }
    }

    /// The peripheral's host answered LE Long Term Key Request: the link encrypts when its key
    /// is the central's (Encryption Change, or Key Refresh Complete on a link already
    /// encrypted); a negative reply is PIN or Key Missing at the central; a different key fails
    /// the link's MIC check, which ends it.
    private func answerEncryption(handle: UInt16, of id: Int, key: [UInt8]?) {
        let outcome = state.withLock { s -> (Connection, VirtualController, VirtualController, Bool, HCIStatus?)? in
            guard let c = s.connections.first(where: { $0.peripheral == id && $0.peripheralHandle == handle }),
                  let expected = c.encryptionKey,
                  let central = s.nodes[c.central]?.controller, let peripheral = s.nodes[c.peripheral]?.controller else { return nil }
            c.encryptionKey = nil
            let refresh = c.encrypted
            guard let key else { return (c, central, peripheral, refresh, .pinOrKeyMissing) }
            guard key == expected else {
                s.counters.encryptionFailures += 1
                return (c, central, peripheral, refresh, .connectionTerminatedMICFailure)
            }
            c.encrypted = true
            return (c, central, peripheral, refresh, nil)
        }
        guard let (connection, central, peripheral, refresh, failure) = outcome else { return }
        switch failure {
        case nil:
            for (controller, handle) in [(central, connection.centralHandle), (peripheral, connection.peripheralHandle)] {
                controller.deliver(refresh ? SimEvents.encryptionKeyRefreshComplete(status: .success, handle: handle)
                                           : SimEvents.encryptionChange(status: .success, handle: handle, enabled: true))
            }
        case .pinOrKeyMissing?:
            central.deliver(SimEvents.encryptionChange(status: .pinOrKeyMissing, handle: connection.centralHandle, enabled: connection.encrypted))
        case let status?:
            disconnect(connection, reason: status, localReason: status)
        }
    }

    /// How long the link layer waits for the peer in a procedure (Vol 6, Part B, 5.2).
    static let procedureResponseTimeout = Duration.seconds(40)

    private func connectionUpdated(_ connection: Connection, _ parameters: Connection.Parameters) {
        let nodes = state.withLock { s in
            [connection.central, connection.peripheral].compactMap { id in s.nodes[id].map { (id, $0.controller) } }
        }
        for (id, controller) in nodes {
            controller.deliver(SimEvents.leConnectionUpdateComplete(
                handle: connection.handle(for: id), interval: parameters.interval, latency: parameters.latency, timeout: parameters.timeout))
        }
    }

    private func disconnect(handle: UInt16, of id: Int, reason: HCIStatus) {
        let connection = state.withLock { s in
            s.connections.first { ($0.central == id || $0.peripheral == id) && $0.handle(for: id) == handle }
        }
        guard let connection else { return }
        // The peer learns the reason given; the side that asked sees Connection Terminated By Local Host.
        disconnect(connection, reason: reason, localReason: .connectionTerminatedByLocalHost, initiator: id)
    }

    /// Ends the link. Each side hears Disconnection Complete after the data already crossing to
    /// it, in the order of its delivery.
    private func disconnect(_ connection: Connection, reason: HCIStatus, localReason: HCIStatus, initiator: Int? = nil) {
        state.withLock { s in
            guard let index = s.connections.firstIndex(where: { $0 === connection }) else { return }
            s.connections.remove(at: index)
            connection.task?.cancel()
            let now = elapsed()
            for id in [connection.central, connection.peripheral] {
                let code = initiator == nil ? reason : (id == initiator ? localReason : reason)
                let due = max(now, connection.lastDelivery[id] ?? .zero)
                connection.delivery[id]?.yield((due, SimEvents.disconnectionComplete(handle: connection.handle(for: id), reason: code), id))
                connection.delivery[id]?.finish()
            }
        }
    }

    private func dropConnections(of id: Int, reason: HCIStatus, in s: inout State, notifySelf: Bool = true) -> [Task<Void, Never>] {
        let dropped = s.connections.filter { $0.central == id || $0.peripheral == id }
        s.connections.removeAll { $0.central == id || $0.peripheral == id }
        var tasks: [Task<Void, Never>] = []
        for connection in dropped {
            if let task = connection.task { tasks.append(task) }
            for continuation in connection.delivery.values { continuation.finish() }
            let peer = connection.peer(of: id)
            s.nodes[peer]?.controller.deliver(SimEvents.disconnectionComplete(handle: connection.handle(for: peer), reason: reason))
            if notifySelf {
                s.nodes[id]?.controller.deliver(SimEvents.disconnectionComplete(handle: connection.handle(for: id), reason: reason))
            }
        }
        return tasks
    }
}

private func nanoseconds(_ duration: Duration) -> UInt64 {
    let (seconds, attoseconds) = duration.components
    return seconds < 0 ? 0 : UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
}

/// What the air has carried.
package struct VirtualAirCounters: Sendable, Hashable {
    package var advertisingEvents = 0
    package var connections = 0
    package var aclPacketsCarried = 0
    package var retransmissions = 0
    package var unknownCommands = 0
    /// Commands whose parameters did not fit their description (answered Invalid HCI Command
    /// Parameters).
    package var malformedCommands = 0
    package var aclForUnknownHandles = 0
    /// LE Long Term Key Request Replies whose key was not the central's.
    package var encryptionFailures = 0
    package init() {}
}
