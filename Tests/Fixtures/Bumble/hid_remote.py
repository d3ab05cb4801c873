#!/usr/bin/env python3
"""
hid_remote.py - a camera shutter remote on Bumble: a HID-over-GATT device (HIDS: HID
Information, Report Map, a keyboard input report (ID 1) and a consumer-control input report
(ID 2), Protocol Mode, Control Point; Battery; Device Information), on an external controller
(RootCanal).

Its Report Map, reports and their CCCDs need an encrypted link, as HOGP requires; it pairs
Just Works and bonds (keys kept in --keystore, so that it comes back bonded after a restart).
Once a host enables notifications of the consumer report it presses Volume Up --presses times,
one every --interval-ms (each release 50 ms after its press); with --sleep-when-idle it then ends
the link and advertises again, as remotes do when idle.

    hid_remote.py --transport tcp-client:127.0.0.1:PORT [--presses N] [--keystore FILE] [--sleep-when-idle]

Prints one JSON object per line after a word: READY, CONNECTED, PAIRED, ENCRYPTED, SUBSCRIBED,
PRESS {"n": k}, IDLE, DISCONNECTED.
"""
import argparse
import asyncio
import json
import signal

from bumble import att, hci
from bumble.core import AdvertisingData
from bumble.device import Device, DeviceConfiguration
from bumble.gatt import GATT_CLIENT_CHARACTERISTIC_CONFIGURATION_DESCRIPTOR, Characteristic, Descriptor, Service
from bumble.keys import JsonKeyStore, MemoryKeyStore
from bumble.pairing import PairingConfig, PairingDelegate
from bumble.transport import open_transport

# Keyboard (ID 1: modifiers, reserved, six keys) and consumer control (ID 2: Volume Up,
# Volume Down, six bits of padding).
REPORT_MAP = bytes([
    0x05, 0x01, 0x09, 0x06, 0xA1, 0x01, 0x85, 0x01, 0x05, 0x07, 0x19, 0xE0, 0x29, 0xE7, 0x15, 0x00,
    0x25, 0x01, 0x75, 0x01, 0x95, 0x08, 0x81, 0x02, 0x95, 0x01, 0x75, 0x08, 0x81, 0x01, 0x95, 0x06,
    0x75, 0x08, 0x15, 0x00, 0x25, 0x65, 0x05, 0x07, 0x19, 0x00, 0x29, 0x65, 0x81, 0x00, 0xC0,
    0x05, 0x0C, 0x09, 0x01, 0xA1, 0x01, 0x85, 0x02, 0x15, 0x00, 0x25, 0x01, 0x75, 0x01, 0x95, 0x02,
    0x09, 0xE9, 0x09, 0xEA, 0x81, 0x02, 0x95, 0x06, 0x81, 0x01, 0xC0,
])

ENCRYPTED_READ = att.Attribute.READABLE | att.Attribute.READ_REQUIRES_ENCRYPTION
ENCRYPTED_READ_WRITE = ENCRYPTED_READ | att.Attribute.WRITEABLE | att.Attribute.WRITE_REQUIRES_ENCRYPTION


def emit(kind, payload=None):
    print(kind if payload is None else f'{kind} {json.dumps(payload)}', flush=True)


def input_report(server, report_id, size):
    report = Characteristic('2A4D', Characteristic.Properties.READ | Characteristic.Properties.NOTIFY,
                            ENCRYPTED_READ, bytes(size))
    report.descriptors = [
        Descriptor('2908', att.Attribute.READABLE, bytes([report_id, 0x01])),
        # The CCCD too needs an encrypted link.
        Descriptor(GATT_CLIENT_CHARACTERISTIC_CONFIGURATION_DESCRIPTOR, ENCRYPTED_READ_WRITE,
                   server.make_descriptor_value(report)),
    ]
    return report


async def main(args):
    async with await open_transport(args.transport) as (source, sink):
        address = hci.Address(args.address)
        config = DeviceConfiguration(name=args.name, address=address, irk=(bytes(address) * 3)[:16])
        device = Device.from_config_with_hci(config, source, sink)
        device.keystore = JsonKeyStore(None, args.keystore) if args.keystore else MemoryKeyStore()
        device.pairing_config_factory = lambda connection: PairingConfig(
            sc=True, mitm=False, bonding=True, delegate=PairingDelegate(),
            identity_address_type=PairingConfig.AddressType.RANDOM)

        keyboard = input_report(device.gatt_server, 1, 8)
        consumer = input_report(device.gatt_server, 2, 1)
        device.add_service(Service('1812', [
            Characteristic('2A4A', Characteristic.Properties.READ, ENCRYPTED_READ, bytes([0x11, 0x01, 0x00, 0x02])),
            Characteristic('2A4B', Characteristic.Properties.READ, ENCRYPTED_READ, REPORT_MAP),
            keyboard,
            consumer,
            Characteristic('2A4E', Characteristic.Properties.READ | Characteristic.Properties.WRITE_WITHOUT_RESPONSE,
                           ENCRYPTED_READ_WRITE, bytes([0x01])),
            Characteristic('2A4C', Characteristic.Properties.WRITE_WITHOUT_RESPONSE,
                           att.Attribute.WRITEABLE | att.Attribute.WRITE_REQUIRES_ENCRYPTION, bytes([0x00])),
        ]))
        device.add_service(Service('180F', [
            Characteristic('2A19', Characteristic.Properties.READ, att.Attribute.READABLE, bytes([args.battery])),
        ]))
        # Device Information: manufacturer, model and PnP ID (vendor ID source 1, the Bluetooth
        # SIG's space; vendor 0xFFFF, for tests; product 0x0002, version 0x0110).
        device.add_service(Service('180A', [
            Characteristic('2A29', Characteristic.Properties.READ, att.Attribute.READABLE, b'Bumble'),
            Characteristic('2A24', Characteristic.Properties.READ, att.Attribute.READABLE, b'HOGP Shutter'),
            Characteristic('2A50', Characteristic.Properties.READ, att.Attribute.READABLE,
                           bytes([0x01, 0xFF, 0xFF, 0x02, 0x00, 0x10, 0x01])),
        ]))

        async def press(connection):
            await asyncio.sleep(args.interval_ms / 1000)
            for n in range(1, args.presses + 1):
                emit('PRESS', {'n': n})
                await device.notify_subscriber(connection, consumer, bytes([0x01]))
                await asyncio.sleep(0.05)
                await device.notify_subscriber(connection, consumer, bytes([0x00]))
                await asyncio.sleep(args.interval_ms / 1000)
            if args.sleep_when_idle:
                # As a cheap remote does when idle: end the link, advertise again.
                emit('IDLE')
                await connection.disconnect()

        def on_subscription(connection, notify_enabled, indicate_enabled):
            if notify_enabled:
                emit('SUBSCRIBED', {'report': 2})
                asyncio.get_running_loop().create_task(press(connection))

        consumer.on('subscription', on_subscription)

        def on_connection(connection):
            emit('CONNECTED', {'peer': str(connection.peer_address)})
            connection.on('pairing', lambda keys: emit('PAIRED', {}))
            connection.on('connection_encryption_change', lambda: emit('ENCRYPTED', {'encrypted': bool(connection.is_encrypted)}))
            connection.on('disconnection', lambda reason: emit('DISCONNECTED', {'reason': int(reason)}))

        device.on('connection', on_connection)
        await device.power_on()
        device.advertising_data = bytes(AdvertisingData([
            (AdvertisingData.FLAGS, bytes([0x06])),
            (AdvertisingData.INCOMPLETE_LIST_OF_16_BIT_SERVICE_CLASS_UUIDS, bytes([0x12, 0x18])),
            (AdvertisingData.APPEARANCE, bytes([0xC1, 0x03])),
            (AdvertisingData.COMPLETE_LOCAL_NAME, args.name.encode()),
        ]))
        await device.start_advertising(own_address_type=hci.OwnAddressType.RANDOM, auto_restart=True)
        emit('READY', {'address': str(device.random_address)})
        await asyncio.sleep(args.timeout)


if __name__ == '__main__':
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--transport', required=True)
    parser.add_argument('--name', default='Bumble-Shutter')
    parser.add_argument('--address', default='F2:F3:F4:F5:F6:C7', help='random static address')
    parser.add_argument('--presses', type=int, default=5)
    parser.add_argument('--interval-ms', type=float, default=200)
    parser.add_argument('--battery', type=int, default=64)
    parser.add_argument('--keystore', help='JSON key store (kept between runs); default in memory')
    parser.add_argument('--timeout', type=float, default=120)
    parser.add_argument('--sleep-when-idle', action='store_true',
                        help='end the link after the presses (and advertise again), as remotes do when idle')
    args = parser.parse_args()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    try:
        asyncio.run(main(args))
    except KeyboardInterrupt:
        pass
