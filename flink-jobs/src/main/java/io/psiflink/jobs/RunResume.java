package io.psiflink.jobs;

import io.psiflink.api.Role;
import io.psiflink.connectors.TableException;
import io.psiflink.jobs.read.InputFingerprint;
import io.psiflink.jobs.session.ResumeState;
import io.psiflink.jobs.session.SessionHandshake;
import io.psiflink.jobs.session.SessionSecrets;
import io.psiflink.jobs.write.BinJournal;
import java.io.IOException;
import java.nio.file.Path;
import java.util.BitSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What makes a two-party run resumable, around the handshake: a first run keeps its {@link
 * ResumeState} once the handshake is done and (party A) commits each bin to the {@link BinJournal};
 * a resumed run ({@code --resume}) reads the state, checks the input did not change, lists the
 * committed bins, resumes in the handshake and takes the first run's token key and bin seed. Both
 * are removed when the run succeeds.
 */
final class RunResume {
  private static final Logger LOG = LoggerFactory.getLogger(RunResume.class);

  private final PartyConfig cfg;
  private final String input;
  private final ResumeState state;
  private final BinJournal journal;
  private final BitSet committed;

  private RunResume(
      PartyConfig cfg, String input, ResumeState state, BinJournal journal, BitSet committed) {
    this.cfg = cfg;
    this.input = input;
    this.state = state;
    this.journal = journal;
    this.committed = committed;
  }

  /**
   * Before the handshake. A first run fingerprints its input; a resumed one also reads its state
   * and checks it against the configuration and the input.
   *
   * @throws IOException naming the cause when the run cannot be resumed
   */
  static RunResume prepare(PartyConfig cfg, String fingerprint) throws IOException, TableException {
    // --no-resume: as a table that cannot be resumed, nothing is kept
    String input = cfg.resumable() ? InputFingerprint.of(cfg.table()) : "not resumable";
    boolean outputParty = cfg.role().equals(Role.A);
    BinJournal journal =
        outputParty && InputFingerprint.resumable(input)
            ? BinJournal.of(cfg.out(), cfg.session())
            : null;
    if (!cfg.resume()) {
      if (journal != null) {
        journal.delete(); // left by an earlier run of this session id that was not resumed
      }
      return new RunResume(cfg, input, null, journal, null);
    }
    if (!InputFingerprint.resumable(input)) {
      throw new IOException(
          "party "
              + cfg.role().label()
              + " reads a JDBC table, which the job cannot tell unchanged: a run over it is not"
              + " resumable; run the join again");
    }
    Path work = Path.of(cfg.workDir());
    ResumeState s = ResumeState.read(work, cfg.session());
    if (!s.role().equals(cfg.role().label())
        || !s.peer().equals(cfg.peer())
        || !s.fingerprint().equals(fingerprint)) {
      throw new IOException(
          "the resume state in "
              + work
              + " is of party "
              + s.role()
              + " with peer '"
              + s.peer()
              + "' and query "
              + s.fingerprint()
              + ", not of this run (party "
              + cfg.role().label()
              + ", peer '"
              + cfg.peer()
              + "', query "
              + fingerprint
              + ")");
    }
    if (!s.input().equals(input)) {
      throw new IOException(
          "party "
              + cfg.role().label()
              + "'s table "
              + cfg.table()
              + " changed since the run to resume (a file was added, removed or rewritten):"
              + " resuming would join two versions of it; run the join again");
    }
    BitSet committed = journal == null ? null : journal.committed(s.bins());
    LOG.info(
        "party {}: resuming session {}{}",
        cfg.role().label(),
        cfg.session(),
        committed == null
            ? ""
            : ": " + committed.cardinality() + " of " + s.bins() + " bins committed in " + journal);
    return new RunResume(cfg, input, s, journal, committed);
  }

  /** This party's part of the handshake. */
  SessionHandshake.Resume handshake() {
    return state == null
        ? SessionHandshake.Resume.NONE
        : new SessionHandshake.Resume(state.tag(), state.bins(), committed);
  }

  /**
   * After the handshake: a first run keeps its state (when its input is resumable); a resumed run
   * swaps in the first run's token key, bin seed and filter key.
   */
  SessionSecrets afterHandshake(SessionSecrets secrets, String fingerprint) throws IOException {
    if (state == null) {
      if (InputFingerprint.resumable(input)) {
        new ResumeState(
                cfg.session(),
                cfg.role().label(),
                cfg.peer(),
                fingerprint,
                secrets.bins(),
                secrets.tokenKey(),
                secrets.binSeed(),
                secrets.filterKey(),
                input)
            .write(Path.of(cfg.workDir()));
      }
      return secrets;
    }
    if ((state.filterKey() == null) != (secrets.prefilter() == null)) {
      throw new IOException(
          "the run to resume "
              + (state.filterKey() == null ? "had no prefilter" : "had a prefilter")
              + ", this one "
              + (secrets.prefilter() == null ? "has none" : "has one")
              + ": resume with the same options");
    }
    LOG.info(
        "party {}: session {} resumed: {} of {} bins committed earlier are skipped",
        cfg.role().label(),
        cfg.session(),
        secrets.resumedBins().cardinality(),
        secrets.bins());
    return secrets.resumedWith(state);
  }

  /** Where the output party commits its bins, or null. */
  BinJournal journal() {
    return journal;
  }

  /**
   * The job succeeded. Party A's output is committed: nothing is left to resume, its state and
   * journal go. Party B keeps its state: A commits after B's job ended, and if A dies before that,
   * the session is resumed by both. Whoever launched the jobs removes B's state ({@link
   * ResumeState#forget}) once the session succeeded at both.
   */
  void finish() {
    try {
      if (cfg.role().equals(Role.A)) {
        ResumeState.delete(Path.of(cfg.workDir()), cfg.session());
      }
      if (journal != null) {
        journal.delete();
      }
    } catch (IOException e) {
      LOG.warn("cannot remove the run's resume state or journal: {}", e.toString());
    }
  }

  /** The run failed: says how to resume it, when it can be. */
  void failed() {
    if (java.nio.file.Files.exists(ResumeState.file(Path.of(cfg.workDir()), cfg.session()))) {
      LOG.info(
          "party {}: session {} can be resumed from {} (--resume)",
          cfg.role().label(),
          cfg.session(),
          cfg.workDir());
    }
  }
}
