import TextSearch
/// The layout of one record in an IIO buffer (`/dev/iio:deviceN`), from the scan elements of
/// the device's sysfs folder (`scan_elements/in_accel_z_en`, `_index`, `_type`).
///
/// The kernel packs the enabled channels in `_index` order, each aligned to its own storage size,
/// and pads the record to the largest storage size (drivers/iio/industrialio-buffer.c,
/// `iio_compute_scan_bytes`).
public struct IIOScanLayout: Sendable, Equatable {
    /// A channel's `_type`, such as `le:s12/16>>4`: endianness, sign, bits of value, bits of
    /// storage, repeat count and right shift.
    public struct ScanType: Sendable, Equatable {
        public var bigEndian: Bool
        public var signed: Bool
        public var realBits: Int
        public var storageBits: Int
        public var shift: Int
        public var repeatCount: Int

        /// Parses `[be|le]:[s|u]BITS/STORAGE[Xrepeat]>>SHIFT`; nil if malformed.
        public init?(_ text: String) {
            let parts = text.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0] == "le" || parts[0] == "be" else { return nil }
            bigEndian = parts[0] == "be"
            var rest = parts[1]
            guard let sign = rest.first, sign == "s" || sign == "u" else { return nil }
            signed = sign == "s"
            rest = rest.dropFirst()
            guard let arrows = rest.rangeOfText(">>"), let shift = Int(rest[arrows.upperBound...]) else { return nil }
            self.shift = shift
            let bitsParts = rest[..<arrows.lowerBound].split(separator: "/")
            guard bitsParts.count == 2, let real = Int(bitsParts[0]) else { return nil }
            let storageAndRepeat = bitsParts[1].split(separator: "X")
            guard let storage = Int(storageAndRepeat[0]) else { return nil }
            repeatCount = storageAndRepeat.count > 1 ? Int(storageAndRepeat[1]) ?? 0 : 1
            realBits = real
            storageBits = storage
            guard [8, 16, 32, 64].contains(storage), real >= 1, real <= storage, shift >= 0, shift < storage,
                  repeatCount >= 1 else { return nil }
        }

        /// The value stored in `bytes` (exactly `storageBits / 8` of them).
        public func decode(_ bytes: UnsafeRawBufferPointer) -> Int64 {
            var raw: UInt64 = 0
            let count = storageBits / 8
            for i in 0..<count {
                let byte = UInt64(bytes[bigEndian ? i : count - 1 - i])
                raw = raw << 8 | byte
            }
            raw >>= UInt64(shift)
            if realBits < 64 { raw &= (1 << UInt64(realBits)) - 1 }
            if signed && realBits < 64 && raw & (1 << UInt64(realBits - 1)) != 0 {
                return Int64(bitPattern: raw | ~((1 << UInt64(realBits)) - 1))
            }
            return Int64(bitPattern: raw)
        }
    }

    /// An enabled channel and where it sits in a record.
    public struct Channel: Sendable, Equatable {
        public var name: String
        public var index: Int
        public var type: ScanType
        public var offsetBytes: Int
    }

    /// The channels in record order.
    public private(set) var channels: [Channel]
    /// Bytes per record.
    public private(set) var recordBytes: Int

    /// Lays out `channels` (name, `_index`, `_type`).
    public init(_ enabled: [(name: String, index: Int, type: ScanType)]) {
        var offset = 0
        var largest = 1
        var laid: [Channel] = []
        for channel in enabled.sorted(by: { $0.index < $1.index }) {
            let size = channel.type.storageBits / 8
            if offset % size != 0 { offset += size - offset % size }
            laid.append(Channel(name: channel.name, index: channel.index, type: channel.type, offsetBytes: offset))
            offset += size * channel.type.repeatCount
            largest = max(largest, size)
        }
        if offset % largest != 0 { offset += largest - offset % largest }
        channels = laid
        recordBytes = offset
    }

    /// The channel named `name`, if enabled.
    public func channel(_ name: String) -> Channel? {
        channels.first { $0.name == name }
    }

    /// The value of `channel` in the record at `record`.
    public func value(of channel: Channel, in record: UnsafeRawBufferPointer) -> Int64 {
        let size = channel.type.storageBits / 8
        return channel.type.decode(UnsafeRawBufferPointer(rebasing: record[channel.offsetBytes..<channel.offsetBytes + size]))
    }
}
