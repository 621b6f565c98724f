extension DrumHit {
    /// `/drum/hit` as its 12 padded address bytes.
    private static let addressBytes: (UInt64, UInt32) = (
        UInt64(bigEndian: 0x2F64_7275_6D2F_6869),  // "/drum/hi"
        UInt32(bigEndian: 0x7400_0000))  // "t" and its NUL padding

    /// The brain's fast path: decodes the usual forms of `/drum/hit` (`,s` then optionally `f` or
    /// `i` velocity, `h` pad time, `i` sequence, `f` strength) straight from one message's bytes, without
    /// building an `OSCMessage` or its arguments array. Returns nil for anything else, well formed
    /// or not; the caller then takes the general path (`OSCDecoding.message` and
    /// `DrumMessage.init`), which decodes the rarer forms and names the errors. What it returns is
    /// exactly what the general path gives for the same bytes (the tests and the wire fuzzer
    /// compare them).
    ///
    /// `drum` is the last drum name seen on the connection: when the bytes spell it again it is
    /// reused, and the name is neither validated nor copied again; a new name replaces it.
    ///
    /// Thread safety: pure; `drum` is the caller's. Allocation: none, unless the drum name is new
    /// and longer than 15 UTF-8 bytes.
    static func fastDecode(_ message: UnsafeRawBufferPointer, drum: inout String) -> DrumHit? {
        let count = message.count
        // Address (12), type tags (4 or 8), drum name (4 or more): at least 20 + 4.
        guard count >= 24, count % 4 == 0,
              message.loadUnaligned(as: UInt64.self) == addressBytes.0,
              message.loadUnaligned(fromByteOffset: 8, as: UInt32.self) == addressBytes.1,
              message[12] == UInt8(ascii: ","), message[13] == UInt8(ascii: "s") else { return nil }
        // The tags after ",s": [f|i] [h] [i], in that order, then NUL padding to 4 bytes.
        var velocityTag: UInt8 = 0
        var hasTime = false
        var hasSequence = false
        var hasStrength = false
        var tagEnd = 14
        if message[tagEnd] == UInt8(ascii: "f") || message[tagEnd] == UInt8(ascii: "i") {
            velocityTag = message[tagEnd]
            tagEnd += 1
            if message[tagEnd] == UInt8(ascii: "h") {
                hasTime = true
                tagEnd += 1
                if message[tagEnd] == UInt8(ascii: "i") {
                    hasSequence = true
                    tagEnd += 1
                    if message[tagEnd] == UInt8(ascii: "f") {  // protocol 2's strength
                        hasStrength = true
                        tagEnd += 1
                    }
                }
            }
        }
        // tagEnd ≤ 18 < 20 ≤ count: every index above is in bounds.
        let drumStart = (tagEnd + 1 + 3) / 4 * 4
        for i in tagEnd..<drumStart where message[i] != 0 { return nil }
        let argumentBytes = (velocityTag == 0 ? 0 : 4) + (hasTime ? 8 : 0) + (hasSequence ? 4 : 0) + (hasStrength ? 4 : 0)
        // The drum name: non-empty, NUL-terminated, zero-padded, then exactly the arguments.
        let drumAreaEnd = count - argumentBytes
        guard drumAreaEnd >= drumStart + 4, message[drumStart] != 0 else { return nil }
        var nameEnd = drumStart + 1
        while nameEnd < drumAreaEnd && message[nameEnd] != 0 { nameEnd += 1 }
        guard nameEnd < drumAreaEnd, (nameEnd + 1 + 3) / 4 * 4 == drumAreaEnd else { return nil }
        for i in (nameEnd + 1)..<drumAreaEnd where message[i] != 0 { return nil }
        let name = UnsafeRawBufferPointer(rebasing: message[drumStart..<nameEnd])
        let known = drum.utf8.withContiguousStorageIfAvailable { stored in
            stored.count == name.count && stored.elementsEqual(name)
        } ?? false
        if !known {
            guard let text = String(validating: name, as: UTF8.self) else { return nil }
            drum = text
        }
        var hit = DrumHit(drum: drum)
        var offset = drumAreaEnd
        if velocityTag == UInt8(ascii: "f") {
            let v = Float(bitPattern: UInt32(bigEndian: message.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
            guard !v.isNaN else { return nil }
            hit.velocity = DrumHit.velocity(fromFloat: v)
            offset += 4
        } else if velocityTag == UInt8(ascii: "i") {
            let v = Int32(bigEndian: message.loadUnaligned(fromByteOffset: offset, as: Int32.self))
            hit.velocity = DrumHit.velocity(fromMIDI: v)
            offset += 4
        }
        if hasTime {
            hit.padTimeMicros = Int64(bigEndian: message.loadUnaligned(fromByteOffset: offset, as: Int64.self))
            offset += 8
        }
        if hasSequence {
            hit.sequence = Int32(bigEndian: message.loadUnaligned(fromByteOffset: offset, as: Int32.self))
            offset += 4
        }
        if hasStrength {
            let strength = Float(bitPattern: UInt32(bigEndian: message.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
            guard DrumHit.isValidStrength(strength) else { return nil }  // the general path names the error
            hit.strength = strength
        }
        return hit
    }
}
