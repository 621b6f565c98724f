import Console
import ArgumentParser
import Dispatch
import DrumAudio
import DrumNet
import HitDetect
import JACKAudio
import BrainCore
import Monotonic
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `drumbrain` (the default subcommand): run the brain.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the brain: accept pads and OSC clients, and play their hits.",
        discussion: """
            Each hit is printed on standard output as one line:
              hit drum=snare velocity=0.500 pad=pad-1 latency_us=180 strike_us=2000000 frame=96000 brain_us=850
            latency_us is the network latency (once the pad has synchronised its clock), \
            strike_us the strike's time on the brain's monotonic clock (µs), frame \
            the output frame where the sound starts, brain_us the time from receiving the hit to \
            rendering the period it starts in. A hit that will not sound prints \
            `dropped drum=… reason=queue_full|mixer_full|kit_swapped` or `unknown drum=…`. Names \
            from the network are printed escaped (control characters as \\xNN, a space as \\x20) and \
            cut at 64 characters. A hit time more than 10 s from the brain's clock, or a clock \
            offset that does not fit its ping, is refused (the hit plays untimed), counted and \
            said at most once every 10 s. When standard output is a terminal, the terminal \
            visual is drawn instead (--no-visual: the lines). On SIGINT or SIGTERM \
            the brain closes every connection and prints each pad's totals on standard error.

            Pairing: with --key-file, only pads given the same file (drumpad run --key-file) \
            play: each connection is challenged (/drum/challenge) and must answer with \
            HMAC-SHA256 of the key (/drum/auth) before it plays; anything else is refused and \
            closed. Make a key with `head -c 32 /dev/urandom | base64 > drum.key` and \
            `chmod 600 drum.key`. Without --key-file any host on the network can play the brain.

            Timing: each hit of a pad with clock sync starts at its strike time plus one latency, \
            the same for every hit, so the spacing the drummer played is kept. The brain chooses \
            it from what it measures (how late each pad's hits arrive after their strike, and \
            the audio period), says it at its first hit and whenever it rises, and gives it in \
            the summary (docs/timing.md). --jitter-buffer-ms sets it instead; \
            --jitter-buffer-ms 0 starts each hit at the next period (lowest latency, uneven).

            Crosstalk: pads on one stand shake each other, and a strike on one fires its \
            neighbours weakly. The brain learns which pads share a stand from the playing (pads \
            that send their hits' strength, protocol 2), says each stand it finds, and does not \
            play a hit that a neighbour's strike explains; it prints \
            `crosstalk drum=… velocity=… pad=…` instead. What it learned is kept across \
            restarts (--stand-state). A weak hit waits for the strike that could explain it \
            until its slot, and past it at most one sensor period + 1 ms (docs/crosstalk.md). \
            --crosstalk-group snare,racktom (once per stand) replaces the learning with fixed \
            groups: a hit within --crosstalk-window-ms after one of at least \
            1/--crosstalk-ratio its velocity on another drum of its group is crosstalk.
            """)

    @Option(help: "TCP port to listen on.")
    var port: Int = BrainServer.defaultPort

    @Option(help: "Address to listen on (0.0.0.0: every IPv4 interface; :: for IPv6 too).")
    var bind: String = "0.0.0.0"

    @Option(help: "The brain's name, announced to pads (default: the host name).")
    var name: String?

    @Option(help: "Close a connection after this many seconds without a message.")
    var idleTimeout: Double = 10

    @Option(help: "Most connections at once; more are told so and closed.")
    var maxConnections: Int = 300

    @Option(help: "Hits per second one connection may sustain (in bursts of a quarter of it, at least 10); more are dropped and counted.")
    var maxHitsPerSecond: Double = 200

    @Option(help: "Pair: accept only pads that prove they hold this key file (at least 16 bytes; make one with `head -c 32 /dev/urandom | base64 > drum.key`).")
    var keyFile: String?

    @Option(help: "The kit: a kit.json or its folder (default: the bundled kit).")
    var kit: String?

    @Option(help: "Where the sound goes: alsa:DEVICE, jack (a JACK client, jackd or PipeWire's; the server's rate and period), wav:FILE (written in real time) or null.")
    var output: String = "alsa:default"

    @Option(help: ArgumentHelp("Also send every hit played as MIDI: jack, a MIDI output port (midi_out) on the brain's JACK client (with --output jack), each note at the frame its sound starts; alsa, an ALSA sequencer port (\"drumbrain:midi out\"; aconnect or a synth subscribes to it), each note when its sound leaves the sound card.", valueName: "jack|alsa"))
    var midiOut: String?

    @Option(help: ArgumentHelp("Let a MIDI source play the kit, mixed with the pads: jack, a MIDI input port (midi_in) on the brain's JACK client (with --output jack); alsa, an ALSA sequencer port (\"drumbrain:midi in\"). Each note-on plays the kit's drum on that note (check-kit shows them; General MIDI's alternatives too, such as 40 for the snare), as pad midi-in.", valueName: "jack|alsa"))
    var midiIn: String?

    @Option(help: "Also record what is played to this WAV file.")
    var record: String?

    @Option(help: ArgumentHelp("Also record every hit played as a Standard MIDI File: each drum's note (General MIDI's for the bundled kit) on channel 10, at the time its sound starts in the output (as --record's WAV); rewritten whole every 0.5 s, so an interrupt or a crash leaves a playable file.", valueName: "FILE.mid"))
    var recordMidi: String?

    @OptionGroup var midi: MIDIOptions

    @Option(help: "Output sample rate in Hz.")
    var rate: Int = 48_000

    @Option(help: "Frames per audio period (smaller is lower latency, larger is safer).")
    var period: Int = 128

    @Option(help: "Periods in the device buffer.")
    var periods: Int = 3

    @Option(help: "The latency from strike to sound in ms, the same for every hit, keeping the spacing the drummer played (default: chosen by the brain from how late the pads' hits arrive; 0: each hit at the next period, the lowest latency but uneven).")
    var jitterBufferMs: Double?

    @Option(help: ArgumentHelp("Drums that share a stand, comma-separated (such as snare,racktom,floortom); a quiet hit just after a louder one of its group is crosstalk and not played. Repeat for each stand.", valueName: "DRUMS"))
    var crosstalkGroup: [String] = []

    @Option(help: "With --crosstalk-group: how long after a louder hit a quieter one of the group is crosstalk, in ms.")
    var crosstalkWindowMs: Double = CrosstalkCanceller.Configuration().window * 1000

    @Option(help: "With --crosstalk-group: a hit is crosstalk when its velocity is at most this × the louder hit's.")
    var crosstalkRatio: Double = CrosstalkCanceller.Configuration().ratio

    @Option(help: ArgumentHelp("Where the stands the brain learns are kept across restarts (default: $XDG_STATE_HOME/drumtrigger/stands, or ~/.local/state/drumtrigger/stands; none: start from nothing and keep nothing).", valueName: "FILE"))
    var standState: String?

    @Flag(help: "Print no line per hit.")
    var quiet = false

    @Flag(inversion: .prefixedNo, help: "Draw the kit, bursts per hit and pad health in the terminal (default: when standard output is a terminal; then no line per hit).")
    var visual: Bool?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
        guard idleTimeout > 0 else { throw ValidationError("--idle-timeout must be > 0 seconds") }
        guard maxConnections > 0 else { throw ValidationError("--max-connections must be > 0") }
        guard maxHitsPerSecond >= 1 else { throw ValidationError("--max-hits-per-second must be ≥ 1") }
        guard AudioEngine.Output(output) != nil else {
            throw ValidationError("--output must be alsa:DEVICE, jack, wav:FILE or null, such as alsa:default")
        }
        if let midiOut {
            guard midiOut == "jack" || midiOut == "alsa" else { throw ValidationError("--midi-out takes jack or alsa") }
            guard midiOut == "alsa" || output == "jack" else {
                throw ValidationError("--midi-out jack needs --output jack: the MIDI port is on the brain's JACK client, whose periods place each note "
                                      + "(without JACK: --midi-out alsa)")
            }
        }
        if let midiIn {
            guard midiIn == "jack" || midiIn == "alsa" else { throw ValidationError("--midi-in takes jack or alsa") }
            guard midiIn == "alsa" || output == "jack" else {
                throw ValidationError("--midi-in jack needs --output jack: the MIDI port is on the brain's JACK client (without JACK: --midi-in alsa)")
            }
        }
        guard (8_000...192_000).contains(rate) else { throw ValidationError("--rate must be 8000…192000 Hz") }

        guard (16...8192).contains(period), (2...16).contains(periods) else {
            throw ValidationError("--period must be 16…8192 frames and --periods 2…16")
        }
        if let problem = CrosstalkCanceller.Configuration.optionProblem(windowMs: crosstalkWindowMs, ratio: crosstalkRatio,
                                                                        jitterBufferMs: jitterBufferMs ?? 0) {
            throw ValidationError(problem)
        }
        _ = try Self.crosstalkGroups(crosstalkGroup)
    }

    /// The drums of each --crosstalk-group, checked: two or more, none in two groups.
    static func crosstalkGroups(_ texts: [String]) throws -> [[String]] {
        var seen: Set<String> = []
        return try texts.map { text in
            let drums = text.split(separator: ",").map { String($0.filter { $0 != " " }) }.filter { !$0.isEmpty }
            guard drums.count >= 2 else {
                throw ValidationError("--crosstalk-group \"\(text)\": name two or more drums that share a stand, such as snare,racktom")
            }
            for drum in drums {
                guard seen.insert(drum).inserted else {
                    throw ValidationError("--crosstalk-group: \(drum) is in two groups; a drum sits on one stand")
                }
            }
            return drums
        }
    }

    func run() async throws {
        // SIGHUP reloads the kit from the same place and swaps it in while playing, except in a
        // terminal: there it is the terminal hanging up (closed), and the brain stops. A reload
        // is caught from here on (`KitReloads`), and done once the brain can.
        let hangupStops = isatty(1) != 0
        let reloads = hangupStops ? nil : KitReloads()
        let brainName = name ?? HostName.current(or: "drumbrain")
        let key = try loadKey()
        // With --output jack the brain is a JACK client, at the server's rate and period.
        let jack = output == "jack" ? try JACKOutput(name: "drumbrain") : nil
        let rate = jack?.sampleRate ?? self.rate
        let period = jack?.periodFrames ?? self.period
        let kitPath = try kit ?? BundledKit.path()
        let loadedKit = try KitLoader.load(kitPath, sampleRate: Double(rate))
        for line in loadedKit.leftOut { printError("drumbrain: kit \(kitPath): \(line)") }
        // (reloaded on SIGHUP, below)
        var audio = AudioEngine.Configuration(output: AudioEngine.Output(output)!, sampleRate: rate, periodFrames: period,
                                              periods: periods, record: record)
        // A measurement aid (tools/bench/jitter): the audio thread's timing, period by period.
        let tracePath = getenv("DRUMBRAIN_CLOCK_TRACE").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        if tracePath != nil { audio.clockTrace = ClockTrace() }
        let engine = try AudioEngine(kit: loadedKit, configuration: audio)
        engine.start()
        if let jack {
            let connected = try jack.start(engine: engine, midiOut: midiOut == "jack", midiIn: midiIn == "jack",
                                           midiChannel: midi.mapping.channel, curve: midi.midiCurve)
            printError("drumbrain: JACK client \"\(jack.name)\": ports out_left, out_right"
                       + (midiOut == "jack" ? ", midi_out" : "") + (midiIn == "jack" ? ", midi_in" : "")
                       + (connected.isEmpty ? " (no playback ports to connect to)" : "; connected to " + connected.joined(separator: ", ")))
        }
        // The ALSA sequencer's ports, for MIDI without JACK.
        let sequencer = midiOut == "alsa" || midiIn == "alsa"
            ? try ALSASequencer(name: "drumbrain", output: midiOut == "alsa", input: midiIn == "alsa") : nil
        if let sequencer {
            printError("drumbrain: ALSA sequencer client \(sequencer.client) \"drumbrain\": "
                       + [sequencer.outPort.map { "port \(sequencer.address($0)) \"midi out\" (aseqdump -p \(sequencer.address($0)), or aconnect \(sequencer.address($0)) SYNTH)" },
                          sequencer.inPort.map { "port \(sequencer.address($0)) \"midi in\" (aconnect KEYBOARD \(sequencer.address($0)))" }]
                           .compactMap { $0 }.joined(separator: "; "))
        }
        printError("drumbrain: kit \"\(loadedKit.displayName)\" (\(loadedKit.drums.map(\.name).joined(separator: ", "))) → \(engine.outputDescription)"
                   + (record.map { "; recording to \($0)" } ?? ""))
        for _ in 0..<100 where engine.status.realtime == nil { try await Task.sleep(for: .milliseconds(5)) }
        if engine.status.realtime == false && jack != nil {
            printError("drumbrain: the JACK server runs without real-time scheduling (jackd --no-realtime?); "
                       + "under load expect xruns")
        } else if engine.status.realtime == false {
            printError("drumbrain: the audio thread runs without real-time priority (SCHED_FIFO: "
                       + "\(engine.status.realtimeRefusal ?? "refused")); under load expect glitches. "
                       + "Allow it with `ulimit -r 95` or an rtprio limit in /etc/security/limits.d/")
        }
        // The terminal visual takes the screen from here; every way out gives it back.
        let visual = BrainVisual.wanted(self.visual) ? BrainVisual(kit: loadedKit) : nil
        defer { visual?.stop() }
        // The kit's drum indices, read on the network thread (the single producer of hits) and
        // replaced when the kit is reloaded.
        let drums = DrumMap(kit: loadedKit, generation: engine.mixer.kit.generation)
        let groups = try Self.crosstalkGroups(crosstalkGroup)
        for drum in groups.joined() where drums.lookup(drum) == nil {
            throw ValidationError("--crosstalk-group: the kit \"\(loadedKit.displayName)\" has no drum \(drum) "
                                  + "(it has \(drums.names.joined(separator: ", ")))")
        }
        let rule = CrosstalkCanceller.Configuration(window: crosstalkWindowMs / 1000, ratio: crosstalkRatio,
                                                    hold: (jitterBufferMs ?? 0) / 1000)
        let crosstalk = groups.isEmpty ? nil : CrosstalkGroups(groups, rule)
        if !groups.isEmpty {
            printError("drumbrain: crosstalk cancelled within " + groups.map { $0.joined(separator: "+") }.joined(separator: ", ")
                       + " (a hit at most \(rule.ratio)× a louder one within \(crosstalkWindowMs) ms, "
                       + "or at most \(rule.tailRatio)× it within \(DecimalFormatting.string(rule.tailWindow * 1000, decimals: 1)) ms after)")
        }
        // Without --crosstalk-group the brain learns its stands from the playing (pads that send
        // their hits' strength, protocol 2), and says each stand it finds.
        let statePath = standState == "none" ? nil : (standState ?? Self.defaultStandState)
        let learned = crosstalk == nil ? Self.loadStands(statePath) : StandModel()
        let stands = crosstalk == nil ? StandCrosstalk(model: learned, onStandFound: { source, receiver, coupling in
            printError("drumbrain: pads \"\(WireText.printable(source, prose: true))\" and \"\(WireText.printable(receiver, prose: true))\" "
                       + "share a stand (\(WireText.printable(receiver, prose: true)) feels about "
                       + "\(DecimalFormatting.string(coupling * 100, decimals: 0)) % of the other's strikes); its crosstalk is cancelled")
        }) : nil
        // Without --jitter-buffer-ms the brain chooses the latency, and says it when it rises.
        let periodMicros = Int64(period) * 1_000_000 / Int64(rate)
        var choosing = LatencyChooser.Configuration(periodMicros: periodMicros)
        choosing.crosstalkHold = stands != nil  // the learned stands' weak hits wait for their cause
        let latency = jitterBufferMs != nil ? nil : LatencyChooser(choosing, onRise: { micros, padKey in
            printError("drumbrain: latency from strike to sound \(DecimalFormatting.string(Double(micros) / 1000, decimals: 1)) ms "
                       + "(pad \"\(WireText.printable(padKey, prose: true))\" needs it; --jitter-buffer-ms sets it)")
        }, onFall: { micros in
            printError("drumbrain: latency from strike to sound \(DecimalFormatting.string(Double(micros) / 1000, decimals: 1)) ms "
                       + "(lower, after a pause in the playing)")
        })
        let router = HitRouter(player: engine, drums: drums, crosstalk: crosstalk, stands: stands,
                               jitterMicros: Int64((jitterBufferMs ?? 0) * 1000), latency: latency)
        // Each received hit, for its line and its burst, on the printer's own thread; none when
        // neither is wanted. Its start is reported once the period it starts in is rendered: the
        // jitter buffer and the device's buffer after it arrived. A device that stands still can
        // take longer (a sound server stopped for a second, then ALSA's pulse plugin holding the
        // stream for two), so allow 5 s more before the line goes out without its frame.
        var writeLine: (@Sendable (String) -> Void)?
        if visual == nil && !quiet { writeLine = { line in StandardOutput.line(line) } }
        // Every hit that starts, as a MIDI note (its drum's, looked up once): into the file at its
        // frame's time, and to the ALSA sequencer's port when its sound leaves the sound card
        // (its frame's time plus the device's buffer).
        let kitNotes = Mutex<[UInt8?]>(loadedKit.drums.map(\.midiNote))
        let midiRecorder = recordMidi.map { MIDIFileRecorder(path: $0) }
        let sendsALSA = sequencer?.outPort != nil
        var recordNote: (@Sendable (Int, Float, Int64) -> Void)?
        if midiRecorder != nil || sendsALSA {
            let mapping = midi.mapping, failed = Atomic<Bool>(false), rate = Int64(rate)
            let bufferFrames = Int64(period * periods)
            recordNote = { drum, velocity, frame in
                let notes = kitNotes.withLock { $0 }
                guard let note = mapping.note(drum: drum, velocity: velocity, micros: frame.saturatingMultiply(1_000_000) / rate,
                                              notes: notes) else { return }
                if let midiRecorder {
                    do {
                        try midiRecorder.add(note, nowMicros: MonotonicClock.nowMicros())
                    } catch {
                        if !failed.exchange(true, ordering: .relaxed) { printError("drumbrain: \(error)") }
                    }
                }
                if sendsALSA, let sequencer, let due = engine.micros(atFrame: frame.saturatingAdd(bufferFrames)) {
                    sequencer.send(note: note.note, velocity: note.velocity, channel: note.channel, atMicros: due)
                }
            }
        }
        // Notes that came just after a write reach the file within the next half second.
        let midiFlusher = midiRecorder.map { recorder in
            Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(250))
                    try? recorder.flushIfDue(nowMicros: MonotonicClock.nowMicros())
                }
            }
        }
        let sinks = HitPrinter.Sinks(line: writeLine,
                                     burst: { drum, velocity, latency in visual?.hit(drum: drum, velocity: velocity, latencyMicros: latency) },
                                     brainTime: { micros in visual?.started(brainMicros: micros) },
                                     started: recordNote)
        let startWaitMicros = (latency?.configuration.maxMicros ?? Int64((jitterBufferMs ?? 0) * 1000)) + Int64(period * periods) * 1_000_000 / Int64(rate) + 5_000_000
        let printer: HitPrinter? = quiet && visual == nil && recordNote == nil ? nil : HitPrinter(
            started: engine.mixer.started, rate: rate, startWaitMicros: startWaitMicros,
            audioRunning: { engine.isRendering }, kitDrums: { drums.names }, sinks: sinks)
        printer?.start()
        // SIGINT and SIGTERM (and SIGHUP in a terminal) are caught from here on, before the brain
        // says it listens: a test or a service manager may stop it the moment it does.
        let stop = StopSignal(hangup: hangupStops)
        let server: BrainServer
        do {
            server = try await BrainServer(
                configuration: .init(host: bind, port: port, brainName: brainName, kitName: loadedKit.name,
                                     limits: .init(idleTimeoutMicros: Int64(idleTimeout * 1e6),
                                                   maxHitsPerSecond: maxHitsPerSecond,
                                                   hitBurst: max(10, maxHitsPerSecond / 4)),
                                     maxConnections: maxConnections, key: key),
                onHit: { received in
                    // On the network thread: decided and handed to the audio thread at once.
                    let routed = router.route(received)
                    printer?.hits.send(routed)
                },
                onNotice: { printError("drumbrain: \($0)") },
                onHello: { hello in
                    // On the network thread, before the pad's first hit: the latency covers it
                    // and the stands know it from the start.
                    router.greet(padName: hello.padName, connectionID: hello.connectionID,
                                 rateHz: hello.rateHz.map(Double.init), strengths: hello.version >= 2,
                                 atMicros: hello.receivedMicros)
                })
        } catch {
            throw ValidationError("cannot listen on \(bind):\(port): \(error); "
                                  + "is another drumbrain running? Try --port with another number")
        }
        // MIDI in: note-ons played as hits of pad midi-in, through the network thread.
        let midiInput = midiIn == nil ? nil : MIDIInput(
            names: drums.names, notes: kitNotes.withLock { $0 }, curve: midi.midiCurve,
            inject: { server.inject($0) },
            onUnmapped: { note in
                printError("drumbrain: MIDI note \(note) came in, but the kit has no drum on it (check-kit shows each drum's note); "
                           + "not played")
            })
        let midiFollower = midiInput.flatMap { input in jack.map { input.follow($0.midiIn) } }
        if let midiInput, let sequencer, sequencer.inPort != nil { sequencer.startInput { midiInput.deliver([$0]) } }
        printError("drumbrain \"\(brainName)\" listening on \(bind):\(server.port)")
        let publisher = publish(brainName: brainName, port: server.port, kitName: loadedKit.name)
        // From here on a SIGHUP (and one that came earlier) reloads the kit.
        reloads?.ready { commit in
            printError("drumbrain: reloading the kit from \(kitPath)")
            do {
                let fresh = try KitLoader.load(kitPath, sampleRate: Double(rate))
                for line in fresh.leftOut { printError("drumbrain: kit \(kitPath): \(line)") }
                // Swapped in and announced unless the brain is stopping meanwhile.
                let swapped = commit {
                    let generation = engine.mixer.swap(to: fresh)
                    drums.replace(kit: fresh, generation: generation)
                    kitNotes.withLock { $0 = fresh.drums.map(\.midiNote) }
                    midiInput?.setKit(names: fresh.drums.map(\.name), notes: fresh.drums.map(\.midiNote))
                    visual?.setKit(fresh)
                    publisher?.setTXT(Self.txtRecords(kitName: fresh.name))
                    server.setKitName(fresh.name)
                    printError("drumbrain: reloaded kit \"\(fresh.displayName)\" from \(kitPath) "
                               + "(\(fresh.drums.map(\.name).joined(separator: ", ")))")
                }
                if !swapped { printError("drumbrain: stopping; the kit loaded meanwhile is not swapped in") }
            } catch {
                printError("drumbrain: kit not reloaded, still playing the previous one: \(error)")
            }
        }
        // An underrun is said when it happens, with where in the output it fell.
        let underruns = Task {
            var seen = 0
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(100))  // cancelled: the loop ends
                let status = engine.status
                guard status.xruns > seen else { continue }
                seen = status.xruns
                if jack != nil {
                    printError("drumbrain: JACK xrun near frame \(status.mixer.frames) (\(seen) so far): a period came "
                               + "late; a longer JACK period or less load on the machine avoids it")
                } else {
                    printError("drumbrain: underrun near frame \(status.mixer.frames) (\(seen) so far): the sound device "
                               + "ran dry and lost time; more room (--period, --periods) or less load on the machine avoids it")
                }
            }
        }
        let visualStatus = visual?.follow(server: server, engine: engine, brainName: brainName,
                                          listening: "\(bind):\(server.port)")
        await stop.wait()
        // First: no kit is swapped in from here on (one being swapped is waited for).
        reloads?.cancel()
        visualStatus?.cancel()
        underruns.cancel()
        visual?.stop()
        printError("drumbrain: stopping")
        midiFollower?.stop()
        sequencer?.stopInput()
        publisher?.stop()
        let totals = await server.stop()
        printer?.finish()
        midiFlusher?.cancel()
        if let midiRecorder, let recordMidi {
            do {
                try midiRecorder.finish()
                printError("drumbrain: \(midiRecorder.count) notes recorded to \(recordMidi)")
            } catch {
                printError("drumbrain: \(error)")
            }
        }
        if let refused = printer?.hits.refusedCount, refused > 0 {
            printError("drumbrain: \(refused) received hits were not printed (their sound is not "
                       + "affected): the printer fell 4096 behind, the terminal taking lines more slowly than they "
                       + "came; --quiet prints none")
        }
        jack?.stop()
        engine.stop()
        if let tracePath, let trace = audio.clockTrace, !trace.write(to: tracePath) {
            printError("drumbrain: cannot write the clock trace \(tracePath): \(String(cString: strerror(errno)))")
        }
        printSummary(engine.status, router: router, pads: totals)
        if let midiInput {
            printError("drumbrain: MIDI in (\(midiIn ?? "")): \(midiInput.played) notes played"
                       + (midiInput.unmapped > 0 ? ", \(midiInput.unmapped) on notes the kit has no drum on" : "")
                       + ((jack?.midiIn.refusedCount ?? 0) > 0 ? ", \(jack?.midiIn.refusedCount ?? 0) lost in bursts over 1024 a period" : ""))
        }
        if let jack, midiOut == "jack" {
            let counts = jack.midiOutCounts
            printError("drumbrain: MIDI out (jack): \(counts.noteOns) note-ons written"
                       + (counts.refused > 0 ? ", \(counts.refused) events refused by JACK's full port buffer" : ""))
        }
        if let sequencer, sequencer.outPort != nil, sequencer.lateNotes + sequencer.failedNotes > 0 {
            printError("drumbrain: MIDI out (alsa): \(sequencer.lateNotes) notes sent late (at once), \(sequencer.failedNotes) refused by the sequencer")
        }
        if let stands, let statePath, !stands.model.pairs.isEmpty {
            do {
                try TextFile.write(stands.model.stateText, to: statePath)
            } catch {
                printError("drumbrain: the stands learned were not kept: \(error)")
            }
        }
    }

    /// The service's TXT records (docs/architecture.md, Discovery): `proto=1` and `kit=NAME`, the
    /// name made printable (`TerminalText.name`, as `Kit.displayName`) and cut, before an escape
    /// and marked `…`, so that the record stays within DNS-SD's 255 bytes, which Avahi holds every
    /// record to (a longer one is not published).
    static func txtRecords(kitName: String) -> [String] {
        let room = 255 - "kit=".utf8.count
        var limit = 64
        var name = TerminalText.name(kitName, limit: limit)
        while name.utf8.count > room && limit > 1 {
            limit -= 1
            name = TerminalText.name(kitName, limit: limit)
        }
        return ["proto=1", "kit=" + name]
    }

    /// Publishes the brain through Avahi, saying what happens; nil where Avahi cannot be used.
    func publish(brainName: String, port: Int, kitName: String) -> AvahiPublisher? {
        do {
            return try AvahiPublisher(name: brainName, port: port,
                                      // proto=1, the discovery contract: every brain speaks it; version 2 is
                                      // agreed per connection (hello, welcome).
                                      txt: Self.txtRecords(kitName: kitName)) { event in
                switch event {
                case .published(let name):
                    printError("drumbrain: published as \"\(WireText.printable(name, prose: true))\" (\(AvahiPublisher.serviceType)); pads find it by itself")
                case .renamed(let old, let new):
                    printError("drumbrain: another brain is called \"\(WireText.printable(old, prose: true))\"; publishing as \"\(WireText.printable(new, prose: true))\"")
                case .noDaemon:
                    printError("drumbrain: no Avahi daemon is running, so pads cannot discover this brain; "
                               + "start avahi-daemon, or give pads --brain HOST:\(port)")
                case .daemonLost:
                    printError("drumbrain: the Avahi daemon went away; publishing again when it returns")
                case .failed(let message):
                    printError("drumbrain: publishing failed: \(message)")
                }
            }
        } catch {
            printError("drumbrain: cannot use Avahi (\(error)); pads need --brain HOST:\(port)")
            return nil
        }
    }
}

