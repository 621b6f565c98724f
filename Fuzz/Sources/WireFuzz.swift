// libFuzzer target: the brain's wire decoder. The input is a TCP byte stream, split into
// arbitrary reads (the first byte picks the read size); each packet the framer returns is decoded
// as OSC and then as a drum message, and by the brain's fast path for hits, which must agree; then
// the same reads go through the brain's per-connection state machine (BrainConnection), clock and
// latency arithmetic included. Any trap is a finding.
// Built with the DrumNet sources it needs by scripts/fuzz (swiftc -sanitize=fuzzer,address).

@_cdecl("LLVMFuzzerTestOneInput")
public func wireFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    guard let first = input.first else { return 0 }
    let readSize = Int(first % 64) + 1
    let stream = input.dropFirst()
    var framer = PacketFramer(maxPacketBytes: 4096)
    var lastDrum = ""
    var offset = stream.startIndex
    streaming: while offset < stream.endIndex {
        let end = min(offset + readSize, stream.endIndex)
        framer.append(stream[offset..<end])
        offset = end
        while true {
            let packet: ArraySlice<UInt8>?
            do { packet = try framer.nextPacket() } catch { break streaming }
            guard let packet else { break }
            // The brain's fast path for hits must agree with the general path below.
            let fast = packet.withUnsafeBytes { DrumHit.fastDecode($0, drum: &lastDrum) }
            guard let osc = try? OSCDecoding.message(packet) else {
                precondition(fast == nil, "fast path took a packet the decoder refuses")
                continue
            }
            let message = try? DrumMessage(osc)
            if let fast { precondition(message == .hit(fast), "fast path gave \(fast), not \(String(describing: message))") }
            if let message {
                // What decodes must encode and decode to the same message.
                let again = try? DrumMessage(OSCDecoding.message(message.packet.dropFirst(4)))
                if case .hit(let hit) = message {
                    precondition(hit.velocity >= 0 && hit.velocity <= 1, "velocity out of 0…1")
                }
                precondition(again == message, "round trip changed \(message)")
            }
        }
    }
    var connection = BrainConnection(connectionID: 1, address: "fuzz", brainName: "b", kitName: "k",
                                     nowMicros: 0)
    var now: Int64 = 1
    offset = stream.startIndex
    while offset < stream.endIndex && !connection.isClosed {
        let end = min(offset + readSize, stream.endIndex)
        _ = connection.receive(stream[offset..<end], nowMicros: now)
        offset = end
        now += 1000
        _ = connection.checkIdle(nowMicros: now)
    }
    return 0
}
