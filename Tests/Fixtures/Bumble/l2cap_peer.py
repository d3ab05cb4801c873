#!/usr/bin/env python3
"""
l2cap_peer.py - a Bumble device with LE credit-based channels (Bumble's LeCreditBasedChannel),
on an external controller (RootCanal).

    l2cap_peer.py --transport tcp-client:127.0.0.1:PORT --role peripheral|central [options]

As a peripheral it advertises (random own address) and, with --listen PSM, accepts channels on
PSM (--mtu, --mps, --max-credits: what it receives); with --refuse RESULT it answers every
channel request with that result instead (LE and enhanced requests alike). As a central it
connects to --peer (public address). Either way, lines on stdin:
    OPEN PSM                 an LE Credit Based Connection Request to the peer's PSM
    OPEN_ENHANCED PSM N      N channels in one Credit Based Connection Request (Bumble's ECFC)
    RECONFIGURE MTU MPS      a Credit Based Reconfigure Request for every enhanced channel
                             opened so far (Bumble receives up to MTU/MPS on them from then on)
On every channel it echoes each SDU back (--echo), or sends --send-count SDUs, SDU n of
1 + (37 n) % --send-max bytes, byte i of it (n + i) % 256, one at a time.
Lines on stdout, one JSON object each, numbered per kind ("nth": 1, 2, ... last in the object):
    READY {"address": ..., "public": ...}
    CONNECTED {"connection": n, "peer": ...}
    CHANNEL_OPEN {"connection": n, "psm": ..., "cid": ..., "peer_mtu": ..., "peer_mps": ..., "credits": ...}
    CHANNEL_FAILED {"connection": n, "psm": ..., "result": int|null, "error": str}
    REFUSED {"connection": n, "result": 5}        --require-encryption refused a request
    RECONFIGURED {"connection": n, "result": r}   the peer's Credit Based Reconfigure Response
    SENT {"connection": n, "sdus": k}              every SDU of --send-count went out
    CHANNEL_CLOSED {"connection": n, "sdus": k, "bytes": b, "without_credit": c}   what it received
    DISCONNECTED {"connection": n, "reason": int}
"""
import argparse
import asyncio
import json
import signal
import sys

from bumble import hci, l2cap
from bumble.core import AdvertisingData
from bumble.device import Device, DeviceConfiguration
from bumble.transport import open_transport


emitted = {}


def emit(kind, payload=None):
    # Lines with a payload are numbered per kind ("nth", last), so a reader can wait for the nth.
    if payload is not None:
        emitted[kind] = emitted.get(kind, 0) + 1
        payload = {**payload, 'nth': emitted[kind]}
    print(kind if payload is None else f'{kind} {json.dumps(payload)}', flush=True)


async def read_line():
    return await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)


connections = 0
# Per connection, the sizes a Reconfigure Request replaced, until the peer answers.
restore = {}


def spec(args, psm):
    return l2cap.LeCreditBasedChannelSpec(psm=psm, mtu=args.mtu, mps=args.mps, max_credits=args.max_credits)


def serve(channel, number, args):
    # Counts what arrives (and K-frames the peer sent with no credit left), echoes or sends.
    received = {'sdus': 0, 'bytes': 0, 'without_credit': 0}
    loop = asyncio.get_running_loop()
    emit('CHANNEL_OPEN', {'connection': number, 'psm': channel.psm, 'cid': channel.source_cid,
                          'peer_mtu': channel.peer_mtu, 'peer_mps': channel.peer_mps, 'credits': channel.credits})

    echoes = asyncio.Queue()

    def on_sdu(sdu):
        received['sdus'] += 1
        received['bytes'] += len(sdu)
        if args.echo:
            echoes.put_nowait(sdu)

    async def echo():
        # One write per SDU, drained before the next: Bumble joins queued writes into one SDU.
        while True:
            channel.write(await echoes.get())
            await channel.drain()

    channel.sink = on_sdu
    take = channel.on_pdu

    def on_pdu(pdu):
        # Bumble only logs a K-frame beyond the credits it gave; counted here.
        if channel.peer_credits == 0:
            received['without_credit'] += 1
        take(pdu)
    channel.on_pdu = on_pdu
    if args.echo:
        loop.create_task(echo())
    channel.on('close', lambda: emit('CHANNEL_CLOSED', {'connection': number, **received}))
    if args.send_count:
        async def send():
            for index in range(args.send_count):
                size = 1 + (index * 37) % args.send_max
                sdu = bytes([(index + i) % 256 for i in range(size)])
                # One write per SDU, drained before the next: Bumble joins queued writes otherwise.
                channel.write(sdu)
                await channel.drain()
            emit('SENT', {'connection': number, 'sdus': args.send_count})
        loop.create_task(send())


def watch(connection, device, args):
    global connections
    connections += 1
    number = connections
    emit('CONNECTED', {'connection': number, 'peer': str(connection.peer_address)})
    connection.on('disconnection', lambda reason: emit('DISCONNECTED', {'connection': number, 'reason': int(reason)}))

    enhanced = []

    async def commands():
        while True:
            line = (await read_line()).strip()
            if not line:
                return
            if line.startswith('OPEN_ENHANCED '):
                psm, count = (int(word, 0) for word in line.split()[1:3])
                manager = device.l2cap_channel_manager
                try:
                    channels = await asyncio.wait_for(
                        manager.create_enhanced_credit_based_channels(connection, spec(args, psm), count), 20)
                    enhanced.extend(channels)
                    for channel in channels:
                        serve(channel, number, args)
                except l2cap.L2capError as error:
                    emit('CHANNEL_FAILED', {'connection': number, 'psm': psm, 'result': int(error.error_code), 'error': str(error)})
                except asyncio.TimeoutError:
                    emit('CHANNEL_FAILED', {'connection': number, 'psm': psm, 'result': None, 'error': 'timeout'})
            elif line.startswith('RECONFIGURE ') and enhanced:
                mtu, mps = (int(word, 0) for word in line.split()[1:3])
                # Bumble does not send this request itself: built from its frame class. Its
                # channels take the new sizes before the peer can use them, and get the old ones
                # back if the peer refuses.
                restore[connection.handle] = [(channel, channel.mtu, channel.mps) for channel in enhanced]
                for channel in enhanced:
                    channel.mtu, channel.mps = mtu, mps
                manager = device.l2cap_channel_manager
                manager.send_control_frame(connection, l2cap.L2CAP_LE_SIGNALING_CID, l2cap.L2CAP_Credit_Based_Reconfigure_Request(
                    identifier=manager.next_identifier(connection), mtu=mtu, mps=mps,
                    destination_cid=[channel.source_cid for channel in enhanced]))
            elif line.startswith('OPEN '):
                psm = int(line.split()[1], 0)
                try:
                    channel = await asyncio.wait_for(connection.create_l2cap_channel(spec=spec(args, psm)), 20)
                    serve(channel, number, args)
                except l2cap.L2capError as error:
                    emit('CHANNEL_FAILED', {'connection': number, 'psm': psm, 'result': int(error.error_code), 'error': str(error)})
                except asyncio.TimeoutError:
                    emit('CHANNEL_FAILED', {'connection': number, 'psm': psm, 'result': None, 'error': 'timeout'})

    asyncio.get_running_loop().create_task(commands())
    return number


async def main(args):
    async with await open_transport(args.transport) as (source, sink):
        config = DeviceConfiguration(name=args.name, address=hci.Address(args.address))
        device = Device.from_config_with_hci(config, source, sink)
        await device.power_on()
        numbers = {}
        if args.listen is not None:
            device.create_l2cap_server(spec=spec(args, args.listen),
                                       handler=lambda channel: serve(channel, numbers.get(channel.connection.handle, 0), args))
        manager = device.l2cap_channel_manager
        def reconfigured(connection, cid, response):
            if int(response.result) != 0:
                for channel, mtu, mps in restore.get(connection.handle, []):
                    channel.mtu, channel.mps = mtu, mps
            restore.pop(connection.handle, None)
            emit('RECONFIGURED', {'connection': numbers.get(connection.handle, 0), 'result': int(response.result)})
        manager.on_l2cap_credit_based_reconfigure_response = reconfigured
        if args.require_encryption:
            # A channel request on a plain link: Insufficient Authentication (nothing to encrypt with yet).
            manager = device.l2cap_channel_manager
            accept = manager.on_l2cap_le_credit_based_connection_request
            accept_enhanced = manager.on_l2cap_credit_based_connection_request

            def require(connection, cid, request):
                if connection.is_encrypted:
                    return accept(connection, cid, request)
                emit('REFUSED', {'connection': numbers.get(connection.handle, 0), 'result': 5})
                manager.send_control_frame(connection, cid, l2cap.L2CAP_LE_Credit_Based_Connection_Response(
                    identifier=request.identifier, destination_cid=0, mtu=0, mps=0, initial_credits=0, result=5))

            def require_enhanced(connection, cid, request):
                if connection.is_encrypted:
                    return accept_enhanced(connection, cid, request)
                emit('REFUSED', {'connection': numbers.get(connection.handle, 0), 'result': 5})
                manager.send_control_frame(connection, cid, l2cap.L2CAP_Credit_Based_Connection_Response(
                    identifier=request.identifier, destination_cid=[0] * len(request.source_cid), mtu=0, mps=0,
                    initial_credits=0, result=5))
            manager.on_l2cap_le_credit_based_connection_request = require
            manager.on_l2cap_credit_based_connection_request = require_enhanced
        if args.refuse is not None:
            # Every LE Credit Based Connection Request answered with this result.
            manager = device.l2cap_channel_manager

            def refuse(connection, cid, request):
                manager.send_control_frame(connection, cid, l2cap.L2CAP_LE_Credit_Based_Connection_Response(
                    identifier=request.identifier, destination_cid=0, mtu=0, mps=0, initial_credits=0, result=args.refuse))

            def refuse_enhanced(connection, cid, request):
                manager.send_control_frame(connection, cid, l2cap.L2CAP_Credit_Based_Connection_Response(
                    identifier=request.identifier, destination_cid=[0] * len(request.source_cid), mtu=0, mps=0,
                    initial_credits=0, result=args.refuse))
            manager.on_l2cap_le_credit_based_connection_request = refuse
            manager.on_l2cap_credit_based_connection_request = refuse_enhanced
        emit('READY', {'address': str(device.random_address), 'public': str(device.public_address)})
        if args.role == 'peripheral':
            device.on('connection', lambda connection: numbers.__setitem__(connection.handle, watch(connection, device, args)))
            device.advertising_data = bytes(AdvertisingData([
                (AdvertisingData.FLAGS, bytes([0x06])),
                (AdvertisingData.COMPLETE_LOCAL_NAME, args.name.encode()),
            ]))
            await device.start_advertising(own_address_type=hci.OwnAddressType.RANDOM, auto_restart=True)
        else:
            connection = await device.connect(hci.Address(args.peer, hci.Address.PUBLIC_DEVICE_ADDRESS),
                                              own_address_type=hci.OwnAddressType.RANDOM, timeout=20)
            numbers[connection.handle] = watch(connection, device, args)
        await asyncio.sleep(args.timeout)


if __name__ == '__main__':
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--transport', required=True)
    parser.add_argument('--role', choices=['peripheral', 'central'], required=True)
    parser.add_argument('--name', default='Bumble-L2CAP')
    parser.add_argument('--address', default='F1:F2:F3:F4:F5:C7', help='random static address')
    parser.add_argument('--peer', help='central: the public address to connect to')
    parser.add_argument('--listen', type=lambda text: int(text, 0), metavar='PSM', help='accept channels on PSM')
    parser.add_argument('--refuse', type=lambda text: int(text, 0), metavar='RESULT',
                        help='answer every channel request with this result')
    parser.add_argument('--require-encryption', action='store_true',
                        help='refuse channel requests on a link that is not encrypted (Insufficient Authentication)')
    parser.add_argument('--mtu', type=int, default=2048)
    parser.add_argument('--mps', type=int, default=247)
    parser.add_argument('--max-credits', type=int, default=16)
    parser.add_argument('--echo', action='store_true', help='send each SDU back')
    parser.add_argument('--send-count', type=int, default=0)
    parser.add_argument('--send-max', type=int, default=2000)
    parser.add_argument('--timeout', type=float, default=120)
    args = parser.parse_args()
    # Test runners start children with SIGTERM blocked; take it back.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    try:
        asyncio.run(main(args))
    except KeyboardInterrupt:
        pass
