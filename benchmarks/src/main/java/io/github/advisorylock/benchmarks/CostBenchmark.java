/*
 * Copyright 2026 the advisory-lock authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *      https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package io.github.advisorylock.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;

import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;

import org.springframework.integration.jdbc.lock.JdbcLockRegistry;

/**
 * Scenarios 1 to 3, the peers' uncontended cost, and the cost as keys per call grow:
 * single-threaded, no contention, a random key per call, every variant measured in the
 * same rounds.
 */
final class CostBenchmark {

	static final String FLOOR = "floor: hand-written `pg_advisory_xact_lock(?)`";

	static final String CHECKED_FLOOR = "hand-written, with the isolation check: `… WHERE current_setting(…) IN (…)`";

	static final String FULLY_CHECKED_FLOOR = "hand-written, with the isolation and recovery checks: "
			+ "`… AND NOT pg_is_in_recovery()`";

	static final String ANNOTATION = "`@AdvisoryLocked` method";

	static final String OPERATIONS = "`AdvisoryLockOperations.lock`";

	static final String ARTICLE = "article's sequence: `SET TRANSACTION`, `set_config`, lock";

	static final String INVOCATION = "invocation scope: `execute(…)` lock + unlock, no work";

	static final String REGISTRY = "Spring Integration `JdbcLockRegistry`: lock + unlock";

	static final String SHEDLOCK = "ShedLock `JdbcTemplateLockProvider`: lock + unlock";

	static final String FENCED = "fenced write: `AdvisoryLockOperations.lock` on the key of the enclosing "
			+ "invocation-scoped call";

	static final String PLAIN = "`AdvisoryLockOperations.lock` on a key the call does not hold";

	static final String TOKEN = "invocation scope, asking `handle.fencingToken()`";

	/** Keys per call of the keys sweep. */
	static final int[] KEY_COUNTS = { 1, 2, 4, 8, 16, 32, 64 };

	/** How many lock names the peers cycle through, so that their tables stay small. */
	private static final int PEER_NAMES = 1024;

	private final Settings settings;

	private final AnnotatedCalls annotated;

	private final HandWrittenCalls handWritten;

	private final JdbcLockRegistry registry;

	private final JdbcTemplateLockProvider shedLock;

	CostBenchmark(Settings settings, AnnotatedCalls annotated, HandWrittenCalls handWritten, JdbcLockRegistry registry,
			JdbcTemplateLockProvider shedLock) {
		this.settings = settings;
		this.annotated = annotated;
		this.handWritten = handWritten;
		this.registry = registry;
		this.shedLock = shedLock;
	}

	/**
	 * Measure one transaction per call, one key, in the rounds of a full run.
	 * @return microseconds per call of each variant, per round
	 */
	Map<String, double[]> perCall() {
		return perCall(this.settings.rounds(31));
	}

	/**
	 * Measure one transaction per call, one key.
	 * @param rounds how many rounds
	 * @return microseconds per call of each variant, per round
	 */
	Map<String, double[]> perCall(int rounds) {
		AtomicInteger names = new AtomicInteger();
		Map<String, Rounds.Operation> variants = new LinkedHashMap<>();
		variants.put(FLOOR, () -> this.handWritten.floor(random()));
		variants.put(CHECKED_FLOOR, () -> this.handWritten.checkedFloor(random()));
		variants.put(FULLY_CHECKED_FLOOR, () -> this.handWritten.fullyCheckedFloor(random()));
		variants.put(ANNOTATION, () -> this.annotated.lockOne(random()));
		variants.put(OPERATIONS, () -> this.handWritten.operations(random()));
		variants.put(ARTICLE, () -> this.handWritten.article(random()));
		variants.put(INVOCATION, () -> this.handWritten.invocation(random()));
		variants.put(REGISTRY, () -> {
			Lock lock = this.registry.obtain("cost-" + names.incrementAndGet() % PEER_NAMES);
			lock.lock();
			lock.unlock();
		});
		variants.put(SHEDLOCK, () -> Peers.shedLockOnce(this.shedLock, "cost-" + names.incrementAndGet() % PEER_NAMES));
		return Rounds.interleaved(variants, rounds, this.settings.duration(1500), this.settings.duration(200));
	}

	/**
	 * Measure the library's share in pairs (see {@link PairedShare}).
	 * @param annotated the annotated calls
	 * @param handWritten the hand-written ones, the programmatic API's among them
	 * @param blocks how many blocks
	 * @param pairs pairs per block
	 * @return by variant, its blocks
	 */
	static Map<String, PairedShare.Blocks> share(AnnotatedCalls annotated, HandWrittenCalls handWritten, int blocks,
			int pairs) throws Exception {
		Map<String, Rounds.Operation> variants = new LinkedHashMap<>();
		variants.put(ANNOTATION, () -> annotated.lockOne(random()));
		variants.put(OPERATIONS, () -> handWritten.operations(random()));
		// Against the same statement written by hand, so that the share is what the
		// library adds around it.
		return PairedShare.measure(() -> handWritten.fullyCheckedFloor(random()), variants, blocks, pairs);
	}

	/**
	 * Measure a fenced write against a plain transaction-scoped lock, in pairs (see
	 * {@link PairedShare}), both inside one invocation-scoped call, as a job's batches
	 * run: the fenced one on the key the call holds, the plain one on a random key.
	 * @param handWritten the calls to measure
	 * @param blocks how many blocks
	 * @param pairs pairs per block
	 * @return the fenced write's blocks, against the plain lock
	 */
	static PairedShare.Blocks fenced(HandWrittenCalls handWritten, int blocks, int pairs) {
		long held = random();
		return handWritten.holding(held, () -> {
			try {
				return PairedShare
					.measure(() -> handWritten.operations(random()), Map.of(FENCED, () -> handWritten.operations(held)),
							blocks, pairs)
					.get(FENCED);
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		});
	}

	/**
	 * Measure what a fencing token costs: an invocation-scoped call that asks it against
	 * one that does not, in pairs (see {@link PairedShare}), each on a random key; then
	 * what the server spends per call, in transaction ids and WAL bytes, over a run of
	 * each.
	 * @param handWritten the calls to measure
	 * @param blocks how many blocks
	 * @param pairs pairs per block, and calls per run of the server's count
	 * @return the token's cost
	 */
	static TokenCost token(HandWrittenCalls handWritten, int blocks, int pairs) throws Exception {
		PairedShare.Blocks paired = PairedShare
			.measure(() -> handWritten.invocation(random()),
					Map.of(TOKEN, () -> handWritten.invocationWithToken(random())), blocks, pairs)
			.get(TOKEN);
		long[] before = handWritten.serverCounters();
		for (int i = 0; i < pairs; i++) {
			handWritten.invocationWithToken(random());
		}
		long[] withToken = handWritten.serverCounters();
		for (int i = 0; i < pairs; i++) {
			handWritten.invocation(random());
		}
		long[] without = handWritten.serverCounters();
		return new TokenCost(paired, (double) (withToken[0] - before[0]) / pairs,
				(double) (withToken[1] - before[1]) / pairs, (double) (without[0] - withToken[0]) / pairs,
				(double) (without[1] - withToken[1]) / pairs);
	}

	/**
	 * Run the fenced-write measure alone and print its table, writing nothing: for work
	 * on it ({@code -Dbenchmarks.scale=0.2} for a quick look).
	 * @param args none
	 */
	public static void main(String[] args) throws Exception {
		Benchmarks.fencedOnly();
	}

	/**
	 * Measure one transaction per call as the keys per call grow.
	 * @return microseconds per call of each variant ({@link #keysVariant}), per round
	 */
	Map<String, double[]> perKeys() {
		Map<String, Rounds.Operation> variants = new LinkedHashMap<>();
		for (int keys : KEY_COUNTS) {
			variants.put(keysVariant("statement", keys), () -> this.handWritten.floorArray(sortedRandom(keys)));
			variants.put(keysVariant("annotation", keys), () -> this.annotated.lockMany(randomList(keys)));
			variants.put(keysVariant("loop", keys), () -> this.handWritten.floorLoop(sortedRandom(keys)));
		}
		return Rounds.interleaved(variants, this.settings.rounds(9), this.settings.duration(600),
				this.settings.duration(120));
	}

	static String keysVariant(String kind, int keys) {
		return kind + "-" + keys;
	}

	private static long random() {
		return ThreadLocalRandom.current().nextLong();
	}

	private static List<Long> randomList(int size) {
		List<Long> keys = new ArrayList<>(size);
		for (int i = 0; i < size; i++) {
			keys.add(random());
		}
		return keys;
	}

	private static Long[] sortedRandom(int size) {
		Long[] keys = randomList(size).toArray(Long[]::new);
		Arrays.sort(keys);
		return keys;
	}

	/**
	 * What a fencing token costs.
	 *
	 * @param paired the calls that ask it against those that do not
	 * @param xidsWithToken transaction ids the server assigned per call that asked it
	 * @param walBytesWithToken WAL bytes the server wrote per call that asked it
	 * @param xidsWithout transaction ids per call that did not
	 * @param walBytesWithout WAL bytes per call that did not
	 */
	record TokenCost(PairedShare.Blocks paired, double xidsWithToken, double walBytesWithToken, double xidsWithout,
			double walBytesWithout) {

	}

}
