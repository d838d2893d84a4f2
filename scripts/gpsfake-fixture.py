#!/usr/bin/env python3
"""Writes the small NMEA logs the location tests feed to gpsd through gpsfake.

Each epoch is GGA, GSA, GSV, GST (unless --no-gst) and RMC, one second apart, dated 2025-06-14;
with --rmc-first it is RMC, GGA, GSA, GSV, GST, so GST comes after the epoch's last timed sentence.
A walk through an orchard: accuracy settles over the first epochs, then the walker moves
north-east at about 1 m/s. With --loss A:B the epochs A..B-1 have no fix.
"""
import argparse
import math
import sys


def checksum(body):
    c = 0
    for ch in body:
        c ^= ord(ch)
    return "%02X" % c


def sentence(body):
    return "$%s*%s\r\n" % (body, checksum(body))


def ddmm(value, width):
    value = abs(value)
    deg = int(value)
    minutes = (value - deg) * 60
    return "%0*d%08.5f" % (width, deg, minutes)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--start", type=int, default=0, help="first epoch number (seconds after 09:00:00)")
    p.add_argument("--no-gst", action="store_true")
    p.add_argument("--loss", default=None)
    p.add_argument("--rmc-first", action="store_true")
    a = p.parse_args()
    loss = range(0)
    if a.loss:
        lo, hi = a.loss.split(":")
        loss = range(int(lo), int(hi))
    out = sys.stdout
    lat0, lon0 = 51.4812345, -0.6034567
    for i in range(a.start, a.start + a.epochs):
        hh, mm, ss = 9, (i // 60), i % 60
        t = "%02d%02d%02d.00" % (hh, mm, ss)
        moving = i >= 10
        north = (i - 10) * 0.7 if moving else 0.0
        east = (i - 10) * 0.7 if moving else 0.0
        lat = lat0 + north / 111_250.0 + ((i * 37) % 11 - 5) * 1e-7
        lon = lon0 + east / (111_250.0 * math.cos(math.radians(lat0))) + ((i * 53) % 13 - 6) * 1e-7
        hdop = max(0.7, 2.4 - i * 0.06)
        sats = min(12, 5 + i // 3)
        alt = 48.3 + (i % 7) * 0.1
        sigma_lat = max(0.9, 6.0 - i * 0.2)
        sigma_lon = max(0.8, 5.0 - i * 0.17)
        lost = i in loss
        ns = "N" if lat >= 0 else "S"
        ew = "E" if lon >= 0 else "W"
        slat, slon = ddmm(lat, 2), ddmm(lon, 3)
        if lost:
            rmc = sentence("GPRMC,%s,V,,,,,,,140625,,,N" % t)
            if a.rmc_first:
                out.write(rmc)
            out.write(sentence("GPGGA,%s,,,,,0,00,99.99,,,,,," % t))
            out.write(sentence("GPGSA,A,1,,,,,,,,,,,,,99.99,99.99,99.99"))
            if not a.rmc_first:
                out.write(rmc)
            continue
        knots = 1.36 if moving else 0.0
        course = 45.0 if moving else 0.0
        rmc = sentence("GPRMC,%s,A,%s,%s,%s,%s,%.2f,%.1f,140625,,,A" % (t, slat, ns, slon, ew, knots, course))
        if a.rmc_first:
            out.write(rmc)
        out.write(sentence("GPGGA,%s,%s,%s,%s,%s,1,%02d,%.2f,%.1f,M,47.0,M,,"
                           % (t, slat, ns, slon, ew, sats, hdop, alt)))
        used = [2, 5, 7, 9, 13, 15, 18, 20, 24, 27, 29, 30][:sats]
        prns = ",".join("%02d" % n for n in used)
        prns += "," * (12 - sats)
        out.write(sentence("GPGSA,A,3,%s,%.2f,%.2f,%.2f" % (prns, hdop * 1.6, hdop, hdop * 1.3)))
        # Satellites in view, four to a GSV sentence.
        groups = [used[k:k + 4] for k in range(0, len(used), 4)]
        for n, group in enumerate(groups):
            sats_text = "".join(",%02d,%02d,%03d,%02d" % (prn, 20 + (prn * 7) % 60, (prn * 29) % 360, 30 + prn % 15)
                                for prn in group)
            out.write(sentence("GPGSV,%d,%d,%02d%s" % (len(groups), n + 1, len(used), sats_text)))
        if not a.no_gst:
            out.write(sentence("GPGST,%s,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f"
                               % (t, 4.2, sigma_lat + 0.5, sigma_lon, 12.0, sigma_lat, sigma_lon, 2 * sigma_lat)))
        if not a.rmc_first:
            out.write(rmc)


main()
