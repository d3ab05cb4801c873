#!/usr/bin/env python3
"""
peripheral.py - Bumble GATT peripheral on a virtual LE link + H4 port for an
external host (the "device under test" host, e.g. a Swift HCI stack).

Default (single process):
    [external host] --H4 over TCP/unix--> EXT controller ==LocalLink== PERIPH controller <-> Bumble Device (this GATT server)

Alternative (--transport): the Device talks to a controller in ANOTHER process,
e.g. `python -m bumble.apps.controllers tcp-server:127.0.0.1:9001 tcp-server:127.0.0.1:9002`
and `peripheral.py --transport tcp-client:127.0.0.1:9002`.

Prints one line 'READY hci=<spec>' once the H4 port accepts hosts and the
device is advertising, and one line 'SUMMARY {json}' on exit.
"""
import argparse
import asyncio
import itertools
import json
import logging
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bumble import att, hci  # noqa: E402
from bumble.core import AdvertisingData  # noqa: E402
from bumble.device import Device  # noqa: E402
from bumble.gatt import Characteristic, CharacteristicValue, Service  # noqa: E402
from bumble.host import Host  # noqa: E402
from bumble.transport import open_transport  # noqa: E402

import vctl  # noqa: E402

DEFAULT_SERVICE = '6E400001-B5A3-F393-E0A9-E50E24DC0001'
DEFAULT_READ = '6E400002-B5A3-F393-E0A9-E50E24DC0001'
DEFAULT_WRITE = '6E400003-B5A3-F393-E0A9-E50E24DC0001'
DEFAULT_NOTIFY = '6E400004-B5A3-F393-E0A9-E50E24DC0001'
DEFAULT_INDICATE = '6E400005-B5A3-F393-E0A9-E50E24DC0001'

log = logging.getLogger('peripheral')


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = p.add_argument_group('HCI plumbing')
    g.add_argument('--hci-listen', default='tcp:127.0.0.1:9001',
                   help="H4 server for the external host: tcp:HOST:PORT (PORT 0 = ephemeral, "
                        "printed in READY line) or unix:PATH / unix:@abstract (default %(default)s)")
    g.add_argument('--transport', default=None,
                   help='instead of an in-process link: open this Bumble transport spec to an '
                        'external controller (e.g. tcp-client:127.0.0.1:9002); disables --hci-listen')
    g.add_argument('--ext-address', default='00:11:22:33:44:55',
                   help='public BD_ADDR of the controller given to the external host')
    g.add_argument('--btsnoop', default=None,
                   help='write a btsnoop of the EXTERNAL host HCI traffic (controller-side view, '
                        'flushed per packet)')
    g.add_argument('--stock', action='store_true',
                   help='stock Bumble 0.0.236 controller + link behaviour for the external host '
                        '(no vctl.py fixes: see HarnessController / HarnessLink docstrings)')
    g.add_argument('--ext-acl-len', type=int, default=27,
                   help='LE ACL data packet length the external host is told (LE Read Buffer '
                        'Size); the host must fragment to this. Stock Bumble: 27')
    g.add_argument('--ext-acl-count', type=int, default=64, help='LE ACL buffers (stock 64)')
    g.add_argument('--ext-rx-fragment', type=int, default=27,
                   help='cut controller->host ACL data into fragments of this size like a real '
                        'controller (27 = LL payload without DLE; 0 = stock: one ACL packet per '
                        'L2CAP PDU, up to MTU+4 bytes). --stock implies 0')
    g.add_argument('--periph-acl-len', type=int, default=251,
                   help='ACL length for the in-process peripheral controller (251 = peripheral '
                        'does not fragment: ~4x faster MTU-247 notifications; stock 27)')
    g.add_argument('--emulate-dle-phy', action='store_true',
                   help='make LE Set Data Length / LE Set PHY succeed with events (cosmetic)')
    g = p.add_argument_group('device / advertising')
    g.add_argument('--name', default='Bumble-Periph')
    g.add_argument('--address', default='F0:F1:F2:F3:F4:F5', help='random static address')
    g.add_argument('--adv-interval-ms', type=float, default=20.0)
    g.add_argument('--count', type=int, default=1,
                   help='number of peripherals on the link (in-process mode only); #2.. are '
                        'named NAME-2.. with the last address byte decremented')
    g.add_argument('--stay', action='store_true',
                   help='keep running after a disconnect (re-advertise) until --timeout')
    g.add_argument('--timeout', type=float, default=60.0, help='exit after this many seconds (0=never)')
    g.add_argument('--conn-update', default=None, metavar='MIN_MS,MAX_MS,LATENCY,TIMEOUT_MS',
                   help='0.2 s after connecting, send an L2CAP Connection Parameter Update '
                        'Request (the central host must answer on CID 5), e.g. 30,50,0,4000')
    g.add_argument('--security-request', action='store_true',
                   help='0.2 s after connecting, send an SMP Security Request (Just Works)')
    g = p.add_argument_group('GATT')
    g.add_argument('--service-uuid', default=DEFAULT_SERVICE)
    g.add_argument('--read-uuid', default=DEFAULT_READ)
    g.add_argument('--write-uuid', default=DEFAULT_WRITE)
    g.add_argument('--notify-uuid', default=DEFAULT_NOTIFY)
    g.add_argument('--indicate-uuid', default=DEFAULT_INDICATE)
    g.add_argument('--long-value-size', type=int, default=300,
                   help='size of the readable value (bytes i%%256); >MTU-1 forces Read Blob')
    g.add_argument('--notify-count', type=int, default=100, help='N notifications per CCCD enable')
    g.add_argument('--first-notify-count', type=int, default=None,
                   help="the first peripheral's --notify-count (with --count); 0: until its link goes down")
    g.add_argument('--notify-interval-ms', type=float, default=0.0,
                   help='delay between notifications (0 = back to back)')
    g.add_argument('--notify-size', type=int, default=0,
                   help='notification value size in bytes (0 = ATT_MTU-3; min 12: seq u32 + '
                        'CLOCK_MONOTONIC ns u64 little endian)')
    g.add_argument('--indicate-count', type=int, default=3, help='indications per CCCD enable')
    g.add_argument('--disconnect-on-read', action='store_true',
                   help='answer a read of the long-read characteristic by disconnecting (a disconnect mid-read)')
    p.add_argument('-v', '--verbose', action='count', default=0)
    return p.parse_args(argv)


class Stats:
    def __init__(self):
        self.t0 = time.monotonic()
        self.connections = 0
        self.active = 0
        self.conn_update_result = None
        self.conn_params = []
        self.encrypted = False
        self.disconnections = []
        self.write_requests = 0
        self.write_commands = 0
        self.bytes_written = 0
        self.last_write = b''
        self.reads = 0
        self.read_blobs = 0
        self.mtu = 23
        self.notifications_sent = 0
        self.notify_bytes = 0
        self.notify_seconds = 0.0
        self.indications_sent = 0
        self.indications_confirmed = 0
        self.subscriptions = []
        self.ready_seconds = None

    def as_dict(self):
        d = dict(self.__dict__)
        d['last_write'] = self.last_write.hex()
        d['notify_rate_per_s'] = (round(self.notifications_sent / self.notify_seconds, 1)
                                  if self.notify_seconds > 0 else None)
        d.pop('t0')
        return d


def declared_database(devices):
    """The first device's GATT database as declared (Bumble's own services included):
    [{"uuid", "characteristics": [{"uuid", "properties"}]}], UUIDs as Strobe prints them."""
    from bumble.gatt import Service as GattService, Characteristic as GattCharacteristic
    services = []
    for attribute in devices[0].gatt_server.attributes if devices else []:
        if isinstance(attribute, GattService):
            services.append({'uuid': attribute.uuid.to_hex_str('-'), 'characteristics': []})
        elif isinstance(attribute, GattCharacteristic) and services:
            services[-1]['characteristics'].append(
                {'uuid': attribute.uuid.to_hex_str('-'), 'properties': int(attribute.properties)})
    return services


async def run(args):
    t_start = time.monotonic()
    stats = Stats()
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    hci_server = None

    def finish(reason):
        if not done.done():
            done.set_result(reason)

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, finish, f'signal {sig.name}')

    # ---- controllers / link ------------------------------------------------
    hosts = []
    if args.transport:
        transport = await open_transport(args.transport)
        hosts.append(Host(controller_source=transport.source, controller_sink=transport.sink))
    else:
        transport = None
        link = vctl.HarnessLink()
        link.fix_acl_source = not args.stock
        for i in range(max(1, args.count)):
            periph_ctrl = vctl.local_controller(link, f'PERIPH{i + 1}',
                                               acl_len=args.periph_acl_len,
                                               spec_fixes=not args.stock,
                                               emulate_dle_phy=args.emulate_dle_phy)
            hosts.append(Host(controller_source=periph_ctrl, controller_sink=periph_ctrl))
        hci_server = vctl.HciServer(
            link, args.hci_listen, public_address=args.ext_address,
            btsnoop_path=args.btsnoop,
            controller_kwargs=dict(spec_fixes=not args.stock,
                                   emulate_dle_phy=args.emulate_dle_phy,
                                   acl_len=args.ext_acl_len, acl_count=args.ext_acl_count,
                                   rx_fragment=0 if args.stock else args.ext_rx_fragment))

    tasks = set()
    devices = []

    def spawn(coro):
        task = asyncio.create_task(coro)
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    def build_device(host, name, address, notify_count):
        device = Device(name=name, address=hci.Address(address), host=host)
        device.advertising_interval_min = args.adv_interval_ms
        device.advertising_interval_max = args.adv_interval_ms
        device.advertising_data = bytes(AdvertisingData([
            (AdvertisingData.FLAGS, bytes([0x06])),
            (AdvertisingData.COMPLETE_LOCAL_NAME, name.encode()),
        ]))

        # ---- GATT ----------------------------------------------------------
        long_value = bytes(i % 256 for i in range(args.long_value_size))

        async def on_read(connection):
            stats.reads += 1
            if args.disconnect_on_read:
                await connection.disconnect()
                await asyncio.Event().wait()  # the request stays unanswered: the link is gone
            return long_value

        def on_write(connection, value):
            stats.bytes_written += len(value)
            stats.last_write = bytes(value)

        read_char = Characteristic(args.read_uuid, Characteristic.Properties.READ,
                                   Characteristic.READABLE, CharacteristicValue(read=on_read))
        write_char = Characteristic(
            args.write_uuid,
            Characteristic.Properties.WRITE | Characteristic.Properties.WRITE_WITHOUT_RESPONSE,
            Characteristic.WRITEABLE, CharacteristicValue(write=on_write))
        notify_char = Characteristic(args.notify_uuid,
                                     Characteristic.Properties.NOTIFY | Characteristic.Properties.READ,
                                     Characteristic.READABLE, b'\x00')
        indicate_char = Characteristic(args.indicate_uuid,
                                       Characteristic.Properties.INDICATE | Characteristic.Properties.READ,
                                       Characteristic.READABLE, b'\x00')
        device.add_service(Service(args.service_uuid, [read_char, write_char, notify_char, indicate_char]))

        # count ATT write request vs write command, read vs read blob
        server = device.gatt_server
        orig_on_gatt_pdu = server.on_gatt_pdu

        def counting_on_gatt_pdu(bearer, pdu):
            if isinstance(pdu, att.ATT_Write_Request) and pdu.attribute_handle == write_char.handle:
                stats.write_requests += 1
            elif isinstance(pdu, att.ATT_Write_Command) and pdu.attribute_handle == write_char.handle:
                stats.write_commands += 1
            elif isinstance(pdu, att.ATT_Read_Blob_Request):
                stats.read_blobs += 1
            return orig_on_gatt_pdu(bearer, pdu)
        server.on_gatt_pdu = counting_on_gatt_pdu

        async def send_notifications(connection):
            t0 = time.monotonic()
            interval = args.notify_interval_ms / 1000.0
            for seq in (itertools.count() if notify_count is None else range(notify_count)):
                if connection.handle not in device.connections:
                    break
                size = args.notify_size or (connection.att_mtu - 3)
                size = max(size, vctl.TS.size)
                value = vctl.TS.pack(seq, time.monotonic_ns()) + bytes(size - vctl.TS.size)
                await device.notify_subscriber(connection, notify_char, value)
                stats.notifications_sent += 1
                stats.notify_bytes += len(value)
                if interval:
                    await asyncio.sleep(interval)
                elif seq % 32 == 31:
                    await asyncio.sleep(0)  # let the loop breathe
            stats.notify_seconds += time.monotonic() - t0
            log.info('sent %d notifications', stats.notifications_sent)

        async def after_connect(connection):
            await asyncio.sleep(0.2)
            if args.conn_update:
                mn, mx, lat, to = (float(x) for x in args.conn_update.split(','))
                try:
                    await device.update_connection_parameters(
                        connection, mn, mx, int(lat), to, use_l2cap=True)
                    stats.conn_update_result = 'accepted'
                except Exception as error:  # noqa: BLE001
                    stats.conn_update_result = f'{type(error).__name__}: {error}'
            if args.security_request:
                connection.request_pairing()

        async def send_indications(connection):
            for seq in range(args.indicate_count):
                if connection.handle not in device.connections:
                    break
                stats.indications_sent += 1
                try:
                    await device.indicate_subscriber(connection, indicate_char,
                                                     vctl.TS.pack(seq, time.monotonic_ns()))
                    stats.indications_confirmed += 1
                except Exception as error:  # timeout / disconnect
                    log.warning('indication %d failed: %s', seq, error)
                    break

        def on_subscription(connection, characteristic, notify_enabled, indicate_enabled):
            stats.subscriptions.append([str(characteristic.uuid), notify_enabled, indicate_enabled])
            if characteristic is notify_char and notify_enabled:
                spawn(send_notifications(connection))
            if characteristic is indicate_char and indicate_enabled:
                spawn(send_indications(connection))
        device.on('characteristic_subscription', on_subscription)

        def on_connection(connection):
            stats.connections += 1
            stats.active += 1
            log.info('connected: %s', connection)
            if args.conn_update or args.security_request:
                spawn(after_connect(connection))

            def on_params():
                stats.conn_params.append(str(connection.parameters))
            connection.on('connection_parameters_update', on_params)

            def on_encryption():
                stats.encrypted = bool(connection.is_encrypted)
            connection.on('connection_encryption_change', on_encryption)

            def on_mtu():
                stats.mtu = connection.att_mtu
            connection.on('connection_att_mtu_update', on_mtu)

            def on_disconnection(reason):
                stats.active -= 1
                stats.disconnections.append(hci.HCI_Constant.error_name(reason))
                log.info('disconnected: %s', hci.HCI_Constant.error_name(reason))
                if args.stay:
                    spawn(device.start_advertising(auto_restart=False))
                elif stats.active == 0:
                    finish('disconnected')
            connection.on('disconnection', on_disconnection)
        device.on('connection', on_connection)
        return device

    base = hci.Address(args.address)
    for i, host in enumerate(hosts):
        name = args.name if i == 0 else f'{args.name}-{i + 1}'
        raw = bytearray(bytes(base))  # little endian: raw[0] is the last printed byte
        raw[0] = (raw[0] - i) % 256
        notify_count = args.notify_count
        if i == 0 and args.first_notify_count is not None:
            notify_count = args.first_notify_count or None  # 0: until the link goes down
        devices.append(build_device(host, name, str(hci.Address(bytes(raw))), notify_count))

    # ---- go ------------------------------------------------------------------
    for device in devices:
        await device.power_on()
        await device.start_advertising(auto_restart=False)
    if hci_server:
        address = await hci_server.start()
        if isinstance(address, tuple):
            ready_spec = f'tcp:{address[0]}:{address[1]}'
        else:
            ready_spec = f'unix:{address}'
    else:
        ready_spec = args.transport
    stats.ready_seconds = round(time.monotonic() - t_start, 4)
    print(f'READY hci={ready_spec} name={args.name} address={args.address} '
          f'startup_s={stats.ready_seconds}', flush=True)

    try:
        if args.timeout > 0:
            reason = await asyncio.wait_for(asyncio.shield(done), args.timeout)
        else:
            reason = await done
    except asyncio.TimeoutError:
        reason = 'timeout'

    # let in-flight notifications drain a moment, then clean up
    await asyncio.sleep(0.05)
    for task in list(tasks):
        task.cancel()
    cpu = os.times()
    summary = stats.as_dict()
    summary.update(gatt_database=declared_database(devices))
    summary.update(exit_reason=reason, wall_s=round(time.monotonic() - t_start, 3),
                   cpu_user_s=round(cpu.user, 3), cpu_sys_s=round(cpu.system, 3),
                   hci_clients=(hci_server.clients if hci_server else None))
    print(f'SUMMARY {json.dumps(summary)}', flush=True)
    print(f'writes received: {stats.write_requests} with response, {stats.write_commands} '
          f'without; notifications sent: {stats.notifications_sent}; indications confirmed: '
          f'{stats.indications_confirmed}/{stats.indications_sent}; exit: {reason}', flush=True)
    if hci_server:
        hci_server.close()
    if transport:
        await transport.close()


def main():
    # A parent may spawn us with SIGTERM/SIGINT blocked (the mask survives exec): unblock them
    # so that stopping the peripheral always ends it cleanly with its SUMMARY.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    args = parse_args()
    level = logging.WARNING if args.verbose == 0 else (logging.INFO if args.verbose == 1 else logging.DEBUG)
    logging.basicConfig(level=level, format='%(asctime)s %(name)s %(levelname)s %(message)s')
    asyncio.run(run(args))


if __name__ == '__main__':
    main()
