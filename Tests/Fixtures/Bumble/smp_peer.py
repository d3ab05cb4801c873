#!/usr/bin/env python3
"""
smp_peer.py - a Bumble device that pairs with Bumble's own Security Manager, on an external
controller (RootCanal: one controller per TCP connection to its HCI port, all on one air).

    smp_peer.py --transport tcp-client:127.0.0.1:PORT --role peripheral|central [options]

As a peripheral it advertises (random own address) and answers whoever connects (with
--request-security it asks for security at once), serving with
--protected a characteristic (5EC00002-...) readable only on an encrypted (or authenticated) link; as a central
it connects to --peer (public address) with the random own address and then pairs (--pair) or
encrypts with the stored keys (--encrypt); a Security Request from the peripheral makes it pair.

The user's part goes through stdout and stdin, one line each:
    out: PASSKEY n          Bumble shows a passkey
    out: ASK_PASSKEY        Bumble wants the passkey typed; answer with a line: the number
    out: NUMBER n           numeric comparison (answered by --reject-number, else yes)
Outcomes, one JSON object each, with the number of the connection (1, 2, ...) they belong to:
    READY {"address": ..., "public": ...}
    CONNECTED {"peer": ...}
    PAIRED {"connection": n, "ltk": hex|null, "ltk_central": ..., "ltk_peripheral": ..., "irk": ..., "authenticated": bool, "identity": ...}
    PAIRING_FAILED {"reason": int}
    ENCRYPTED {"encrypted": bool}
    ENCRYPTION_FAILED {"error": str}
    DISCONNECTED {"reason": int}
    PARAMETERS {"connection": n, "interval": ms, "latency": n, "timeout": ms}   the link's new parameters
    UPDATE_DONE {"interval": ms, "seconds": s} / UPDATE_FAILED {"error": int, "seconds": s}
                            the outcome of each --update-parameters request, and how long it took
    SERVICE_ADDED {"after": n, "hash": hex}   --add-service-after: a new service joined the
                            database; the Database Hash Bumble serves now (READY has the first)
Bumble's own GATT service (Service Changed, Client Supported Features, Database Hash computed
by Bumble) is part of every database.
Keys go to stdout here only because this is a test peer: the test compares them with Strobe's.
"""
import argparse
import asyncio
import json
import os
import signal
import sys

from bumble import att, hci
from bumble.core import AdvertisingData
from bumble.device import Device, DeviceConfiguration
from bumble.gatt import Characteristic, Service
from bumble.keys import JsonKeyStore, MemoryKeyStore
from bumble.pairing import PairingConfig, PairingDelegate
from bumble.profiles.gatt_service import GenericAttributeProfileService
from bumble.transport import open_transport

IO = {
    'no-input-no-output': PairingDelegate.IoCapability.NO_OUTPUT_NO_INPUT,
    'display-only': PairingDelegate.IoCapability.DISPLAY_OUTPUT_ONLY,
    'display-yes-no': PairingDelegate.IoCapability.DISPLAY_OUTPUT_AND_YES_NO_INPUT,
    'keyboard-only': PairingDelegate.IoCapability.KEYBOARD_INPUT_ONLY,
    'keyboard-display': PairingDelegate.IoCapability.DISPLAY_OUTPUT_AND_KEYBOARD_INPUT,
}

PROTECTED_SERVICE = '5EC00001-5EC0-4E00-8000-00805F9B34FB'
PROTECTED_CHARACTERISTIC = '5EC00002-5EC0-4E00-8000-00805F9B34FB'

ALL_KEYS = (PairingDelegate.KeyDistribution.DISTRIBUTE_ENCRYPTION_KEY
            | PairingDelegate.KeyDistribution.DISTRIBUTE_IDENTITY_KEY
            | PairingDelegate.KeyDistribution.DISTRIBUTE_SIGNING_KEY)


def emit(kind, payload=None):
    print(kind if payload is None else f'{kind} {json.dumps(payload)}', flush=True)


async def read_line():
    return await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)


class Delegate(PairingDelegate):
    def __init__(self, io, reject_number):
        super().__init__(io_capability=io, local_initiator_key_distribution=ALL_KEYS,
                         local_responder_key_distribution=ALL_KEYS)
        self.reject_number = reject_number

    async def compare_numbers(self, number, digits):
        emit(f'NUMBER {number}')
        return not self.reject_number

    async def get_number(self):
        emit('ASK_PASSKEY')
        line = (await read_line()).strip()
        return int(line) if line.isdigit() else None

    async def display_number(self, number, digits):
        emit(f'PASSKEY {number}')


def key_hex(key):
    return key.value.hex() if key is not None else None


connections = 0
disconnections = 0
security_requests = 0
ADDED_SERVICE = '5EC00003-5EC0-4E00-8000-00805F9B34FB'


def database_hash(device):
    # What Bumble's GATT service answers to a Database Hash read, least significant octet first.
    service = next(s for s in device.gatt_server.attributes if isinstance(s, GenericAttributeProfileService))
    return service.get_database_hash(type('Connection', (), {'device': device})())


def watch(connection, device, args):
    # Events carry the number of the connection they belong to (1, 2, ...).
    global connections
    connections += 1
    number = connections

    def on_disconnection(reason):
        global disconnections
        disconnections += 1
        emit('DISCONNECTED', {'connection': number, 'reason': int(reason)})
        if args.add_service_after == disconnections:
            # The database changes while no client is connected, as after a firmware update.
            device.add_service(Service(ADDED_SERVICE, [Characteristic(
                '5EC00004-5EC0-4E00-8000-00805F9B34FB', Characteristic.Properties.READ, att.Attribute.READABLE, b'\x01')]))
            emit('SERVICE_ADDED', {'after': disconnections, 'hash': database_hash(device).hex()})

    def on_pairing(keys):
        emit('PAIRED', {
            'connection': number,
            'ltk': key_hex(keys.ltk), 'ltk_central': key_hex(keys.ltk_central),
            'ltk_peripheral': key_hex(keys.ltk_peripheral), 'irk': key_hex(keys.irk),
            'csrk': key_hex(keys.csrk),
            'authenticated': bool((keys.ltk or keys.ltk_central or keys.ltk_peripheral).authenticated)
            if (keys.ltk or keys.ltk_central or keys.ltk_peripheral) else False,
            'identity': str(connection.peer_resolvable_address or connection.peer_address),
        })

    connection.on('pairing', on_pairing)
    connection.on('pairing_failure', lambda reason: emit('PAIRING_FAILED', {'connection': number, 'reason': int(reason)}))
    connection.on('connection_encryption_change',
                  lambda: emit('ENCRYPTED', {'connection': number, 'encrypted': bool(connection.is_encrypted)}))
    connection.on('connection_encryption_failure',
                  lambda error: emit('ENCRYPTION_FAILED', {'connection': number, 'error': str(error)}))
    connection.on('disconnection', on_disconnection)

    def on_security_request(auth_req):
        # The peripheral asks for security: pair, as an application would (unless told to miss
        # the first ones, as a central that was not listening yet).
        global security_requests
        security_requests += 1
        ignored = security_requests <= args.ignore_security_requests
        emit('SECURITY_REQUEST', {'connection': number, 'authReq': int(auth_req), 'ignored': ignored})
        if ignored:
            return
        asyncio.get_running_loop().create_task(connection.pair())

    connection.on('security_request', on_security_request)

    def on_parameters():
        emit('PARAMETERS', {'connection': number, 'interval': connection.parameters.connection_interval,
                            'latency': connection.parameters.peripheral_latency,
                            'timeout': connection.parameters.supervision_timeout})

    connection.on('connection_parameters_update', on_parameters)


async def update_parameters(connection, specs):
    # Each MIN_MS,MAX_MS,LATENCY,TIMEOUT_MS in turn, through the link layer (LE Connection Update
    # as peripheral).
    for spec in specs:
        low, high, latency, timeout = (float(value) for value in spec.split(','))
        started = asyncio.get_running_loop().time()
        try:
            await connection.update_parameters(low, high, int(latency), timeout)
            emit('UPDATE_DONE', {'interval': connection.parameters.connection_interval,
                                 'seconds': asyncio.get_running_loop().time() - started})
        except hci.HCI_Error as error:
            emit('UPDATE_FAILED', {'error': int(error.error_code), 'seconds': asyncio.get_running_loop().time() - started})


async def main(args):
    async with await open_transport(args.transport) as (source, sink):
        # The IRK comes from the address (as Bumble derives one when none is configured), so a
        # device started again with the same address keeps its identity; with --privacy it shows
        # a new resolvable private address each start.
        address = hci.Address(args.address)
        config = DeviceConfiguration(name=args.name, address=address, irk=(bytes(address) * 3)[:16],
                                     le_privacy_enabled=args.privacy, le_rpa_timeout=0)
        device = Device.from_config_with_hci(config, source, sink)
        device.keystore = JsonKeyStore(None, args.keystore) if args.keystore else MemoryKeyStore()
        delegate = Delegate(IO[args.io_capability], args.reject_number)
        identity_type = {'random': PairingConfig.AddressType.RANDOM, 'public': PairingConfig.AddressType.PUBLIC,
                         'stock': None}[args.identity_address_type]
        device.pairing_config_factory = lambda connection: PairingConfig(
            sc=not args.legacy, mitm=args.mitm, bonding=not args.no_bonding, delegate=delegate,
            identity_address_type=identity_type)
        if args.protected:
            # A readable characteristic the link must be encrypted (or authenticated) for.
            requires = (att.Attribute.READ_REQUIRES_AUTHENTICATION if args.protected_requires == 'authentication'
                        else att.Attribute.READ_REQUIRES_ENCRYPTION)
            device.add_service(Service(PROTECTED_SERVICE, [Characteristic(
                PROTECTED_CHARACTERISTIC, Characteristic.Properties.READ,
                att.Attribute.READABLE | requires, bytes.fromhex(args.protected))]))
        await device.power_on()
        if args.silent_att:
            # Bumble's GATT server no longer hears ATT: every request goes unanswered.
            device.l2cap_channel_manager.deregister_fixed_channel(att.ATT_CID)
            device.l2cap_channel_manager.register_fixed_channel(att.ATT_CID, lambda handle, pdu: None)
        emit('READY', {'address': str(device.random_address), 'public': str(device.public_address),
                       'hash': database_hash(device).hex()})
        if args.claim_identity:
            # Key distribution reads these: the peer now claims another device's identity.
            if args.identity_address_type == 'public':
                device.public_address = hci.Address(args.claim_identity, hci.Address.PUBLIC_DEVICE_ADDRESS)
            else:
                device.static_address = hci.Address(args.claim_identity, hci.Address.RANDOM_DEVICE_ADDRESS)

        if args.role == 'peripheral':
            def on_connection(connection):
                watch(connection, device, args)
                if args.request_security:
                    connection.request_pairing()
                if args.update_parameters:
                    asyncio.get_running_loop().create_task(update_parameters(connection, args.update_parameters))

            device.on('connection', on_connection)
            device.advertising_data = bytes(AdvertisingData([
                (AdvertisingData.FLAGS, bytes([0x06])),
                (AdvertisingData.COMPLETE_LOCAL_NAME, args.name.encode()),
            ]))
            await device.start_advertising(own_address_type=hci.OwnAddressType.RANDOM, auto_restart=True)
        else:
            connection = await device.connect(
                hci.Address(args.peer, hci.Address.PUBLIC_DEVICE_ADDRESS),
                own_address_type=hci.OwnAddressType.RANDOM, timeout=20)
            watch(connection, device, args)
            emit('CONNECTED', {'peer': str(connection.peer_address)})
            try:
                if args.pair:
                    await connection.pair()
                elif args.encrypt:
                    await connection.encrypt()
            except Exception as error:  # reported above through the connection's events
                emit('ERROR', {'error': type(error).__name__})
        await asyncio.sleep(args.timeout)


if __name__ == '__main__':
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--transport', required=True)
    parser.add_argument('--role', choices=['peripheral', 'central'], required=True)
    parser.add_argument('--name', default='Bumble-SMP')
    parser.add_argument('--address', default='F1:F2:F3:F4:F5:C6', help='random static address')
    parser.add_argument('--peer', help='central: the public address to connect to')
    parser.add_argument('--pair', action='store_true', help='central: pair once connected')
    parser.add_argument('--encrypt', action='store_true', help='central: encrypt with the stored keys')
    parser.add_argument('--io-capability', choices=sorted(IO), default='no-input-no-output')
    parser.add_argument('--legacy', action='store_true', help='LE legacy pairing only')
    parser.add_argument('--mitm', action='store_true')
    parser.add_argument('--no-bonding', action='store_true')
    parser.add_argument('--reject-number', action='store_true')
    parser.add_argument('--request-security', action='store_true', help='peripheral: send Security Request on connection')
    parser.add_argument('--ignore-security-requests', type=int, default=0, metavar='N',
                        help='central: do nothing on the first N Security Requests')
    parser.add_argument('--protected', help='serve this value (hex) in a characteristic that needs security')
    parser.add_argument('--protected-requires', choices=['encryption', 'authentication'], default='encryption')
    parser.add_argument('--privacy', action='store_true',
                        help='advertise and connect from a resolvable private address (new at each start)')
    parser.add_argument('--keystore', help='JSON key store (kept between runs); default in memory')
    parser.add_argument('--identity-address-type', choices=['random', 'public', 'stock'], default='random',
                        help='the identity address it distributes: its static random one, its public one, '
                             "or Bumble's default (public when the controller has one)")
    parser.add_argument('--update-parameters', action='append', metavar='MIN_MS,MAX_MS,LATENCY,TIMEOUT_MS',
                        help='peripheral: ask for these connection parameters once connected (repeatable, in order)')
    parser.add_argument('--silent-att', action='store_true', help='answer no ATT request (as a host with no GATT server running)')
    parser.add_argument('--claim-identity', help='distribute this address (of --identity-address-type) as its identity')
    parser.add_argument('--add-service-after', type=int, metavar='N',
                        help='add a service to the database when the Nth link ends')
    parser.add_argument('--timeout', type=float, default=120)
    args = parser.parse_args()
    # Test runners start children with SIGTERM blocked; take it back.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    try:
        asyncio.run(main(args))
    except KeyboardInterrupt:
        pass
