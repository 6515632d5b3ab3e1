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
package io.github.advisorylock.sample.chaos;

import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

import com.jayway.jsonpath.JsonPath;
import io.github.advisorylock.sample.Http;
import org.jspecify.annotations.Nullable;

/**
 * The chaos run's clients: a fixed number of threads, each sending one request at a time
 * to a random instance, its choices drawn from a generator seeded from the run's seed.
 * Users on both plans create, complete and cancel setup requests (two hot users get a
 * large share); plans are reported on, a few reports of a plan at once; accounts see
 * withdrawals and transfers in both directions; one request in ten is malformed or
 * hostile. Every answer goes to the {@link ClientLog}.
 *
 * @author advisory-lock authors
 */
final class LoadGenerator {

	/** Threads sending requests, each one at a time: the bound of the load. */
	static final int CLIENTS = 6;

	static final int USERS = 12;

	static final int ACCOUNTS = 6;

	static final long OPENING_BALANCE = 100_000;

	static final long DAILY_LIMIT = 20_000;

	/** How long a client waits after a refused connection. */
	private static final Duration REFUSED_BACKOFF = Duration.ofMillis(50);

	/** Above {@code LedgerService.MAX_AMOUNT}. */
	private static final long HUGE = 10_000_000_000_000L;

	private final ChaosCluster cluster;

	private final ClientLog log;

	private final long seed;

	private final List<UUID> users = new ArrayList<>();

	private final Map<UUID, Integer> limits = new ConcurrentHashMap<>();

	private final List<UUID> accounts = new ArrayList<>();

	/**
	 * The requests the client saw created and not yet completed or cancelled, per user.
	 */
	private final Map<UUID, List<UUID>> open = new ConcurrentHashMap<>();

	private final List<Thread> threads = new ArrayList<>();

	private volatile boolean stopped;

	LoadGenerator(ChaosCluster cluster, ClientLog log, long seed) {
		this.cluster = cluster;
		this.log = log;
		this.seed = seed;
	}

	/**
	 * Create the users and accounts, before any fault, and remember each user's limit as
	 * the API gives it.
	 */
	void createData() {
		for (int i = 0; i < USERS; i++) {
			String plan = (i % 2 == 0) ? "free" : "pro";
			HttpResponse<String> user = this.cluster.http(i % ChaosCluster.INSTANCES)
				.post("/users", "{\"plan\":\"" + plan + "\"}");
			UUID id = UUID.fromString(Http.json(user, "$.id"));
			this.users.add(id);
			this.limits.put(id, Http.<Integer>json(user, "$.pendingLimit"));
			this.open.put(id, new CopyOnWriteArrayList<>());
		}
		for (int i = 0; i < ACCOUNTS; i++) {
			HttpResponse<String> account = this.cluster.http(i % ChaosCluster.INSTANCES)
				.post("/accounts",
						"{\"balance\":" + OPENING_BALANCE + ",\"dailyWithdrawalLimit\":" + DAILY_LIMIT + "}");
			this.accounts.add(UUID.fromString(Http.json(account, "$.id")));
		}
	}

	/**
	 * Return the users, the first two of them hot.
	 * @return the users
	 */
	List<UUID> users() {
		return List.copyOf(this.users);
	}

	/**
	 * Return each user's limit of pending requests.
	 * @return the limits
	 */
	Map<UUID, Integer> limits() {
		return Map.copyOf(this.limits);
	}

	/**
	 * Return the accounts.
	 * @return the accounts
	 */
	List<UUID> accounts() {
		return List.copyOf(this.accounts);
	}

	/**
	 * Return a user that gets a large share of the load, so that a lock held on it is
	 * soon asked for.
	 * @param random the generator that chooses
	 * @return one of the two hot users
	 */
	UUID hotUser(Random random) {
		return this.users.get(random.nextInt(2));
	}

	/**
	 * Start the clients.
	 */
	void start() {
		for (int i = 0; i < CLIENTS; i++) {
			Random random = new Random(this.seed * 31 + i);
			Thread thread = new Thread(() -> {
				while (!this.stopped) {
					step(random);
				}
			}, "chaos-client-" + i);
			thread.setDaemon(true);
			thread.start();
			this.threads.add(thread);
		}
	}

	/**
	 * Stop the clients and wait for their requests in flight, each bounded by the HTTP
	 * client's timeout.
	 */
	void stop() {
		this.stopped = true;
		for (Thread thread : this.threads) {
			try {
				thread.join(TimeUnit.SECONDS.toMillis(60));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	private void step(Random random) {
		int instance = random.nextInt(ChaosCluster.INSTANCES);
		int choice = random.nextInt(100);
		if (choice < 10) {
			hostile(random, instance);
		}
		else if (choice < 45) {
			UUID user = (random.nextInt(10) < 4) ? hotUser(random) : this.users.get(random.nextInt(USERS));
			send(Operation.CREATE_REQUEST, instance, user, null,
					(http) -> http.post("/users/" + user + "/setup-requests", null));
		}
		else if (choice < 65) {
			UUID user = this.users.get(random.nextInt(USERS));
			List<UUID> requests = this.open.get(user);
			if (requests.isEmpty()) {
				return;
			}
			UUID request = requests.get(random.nextInt(requests.size()));
			Operation operation = random.nextBoolean() ? Operation.COMPLETE_REQUEST : Operation.CANCEL_REQUEST;
			String action = (operation == Operation.COMPLETE_REQUEST) ? "complete" : "cancel";
			Answer answer = send(operation, instance, user, request,
					(http) -> http.post("/users/" + user + "/setup-requests/" + request + "/" + action, null));
			if (answer.status() == 200 || answer.rejectedByRule()) {
				requests.remove(request);
			}
		}
		else if (choice < 68) {
			String plan = random.nextBoolean() ? "free" : "pro";
			send(Operation.PLAN_REPORT, instance, null, null, (http) -> http.get("/plans/" + plan + "/report"));
		}
		else if (choice < 82) {
			UUID account = this.accounts.get(random.nextInt(ACCOUNTS));
			long amount = 1 + random.nextInt(2_000);
			send(Operation.WITHDRAW, instance, account, null,
					(http) -> http.post("/accounts/" + account + "/withdrawals", "{\"amount\":" + amount + "}"));
		}
		else {
			int from = random.nextInt(ACCOUNTS);
			int to = (from + 1 + random.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
			UUID source = this.accounts.get(from);
			long amount = 1 + random.nextInt(5_000);
			send(Operation.TRANSFER, instance, source, null,
					(http) -> http.post("/transfers", transfer(source, this.accounts.get(to), Long.toString(amount))));
		}
	}

	private void hostile(Random random, int instance) {
		UUID account = this.accounts.get(random.nextInt(ACCOUNTS));
		UUID other = this.accounts.get((this.accounts.indexOf(account) + 1) % ACCOUNTS);
		switch (random.nextInt(6)) {
			case 0 -> {
				String id = List.of("not-a-uuid", "1", "%27%3B--", "00000000-0000-0000-0000-00000000000g")
					.get(random.nextInt(4));
				send(Operation.BAD_ID, instance, null, null,
						(http) -> http.post("/users/" + id + "/setup-requests", null));
			}
			case 1 -> send(Operation.HUGE_AMOUNT, instance, null, null,
					(http) -> random.nextBoolean()
							? http.post("/accounts/" + account + "/withdrawals", "{\"amount\":" + HUGE + "}")
							: http.post("/transfers", transfer(account, other, "99999999999999999999999")));
			case 2 -> send(Operation.NEGATIVE_AMOUNT, instance, null, null,
					(http) -> random.nextBoolean()
							? http.post("/accounts/" + account + "/withdrawals",
									"{\"amount\":-" + (1 + random.nextInt(1000)) + "}")
							: http.post("/transfers", transfer(account, other, "-" + (1 + random.nextInt(1000)))));
			case 3 -> send(Operation.SELF_TRANSFER, instance, null, null,
					(http) -> http.post("/transfers", transfer(account, account, "1")));
			case 4 -> {
				UUID unknown = UUID.randomUUID();
				send(Operation.UNKNOWN_ACCOUNT, instance, null, null,
						(http) -> http.post("/accounts/" + unknown + "/withdrawals", "{\"amount\":1}"));
			}
			default -> {
				UUID unknown = UUID.randomUUID();
				send(Operation.UNKNOWN_USER, instance, null, null,
						(http) -> http.post("/users/" + unknown + "/setup-requests", null));
			}
		}
	}

	private static String transfer(UUID from, UUID to, String amount) {
		return "{\"from\":\"" + from + "\",\"to\":\"" + to + "\",\"amount\":" + amount + "}";
	}

	private Answer send(Operation operation, int instance, @Nullable UUID subject, @Nullable UUID target,
			Function<Http, HttpResponse<String>> request) {
		long sent = this.log.now();
		Answer answer;
		try {
			HttpResponse<String> response = request.apply(this.cluster.http(instance));
			int status = response.statusCode();
			String contentType = response.headers().firstValue("Content-Type").orElse("");
			boolean problem = contentType.startsWith("application/problem+json");
			String created = (status == 201) ? read(response, "$.id") : null;
			answer = new Answer(operation, instance, sent, this.log.now(), status, null,
					problem ? read(response, "$.title") : null, problem, subject, target,
					(created != null) ? UUID.fromString(created) : null);
		}
		catch (UncheckedIOException ex) {
			// Refused: the request never reached the instance, so it certainly did
			// nothing.
			int status = (ex.getCause() instanceof ConnectException) ? Answer.REFUSED : Answer.NO_ANSWER;
			answer = new Answer(operation, instance, sent, this.log.now(), status,
					ex.getCause().getClass().getSimpleName() + ": " + ex.getCause().getMessage(), null, false, subject,
					target, null);
		}
		this.log.add(answer);
		if (answer.status() == Answer.REFUSED) {
			// The instance is down: back off a moment, as a real client would, rather
			// than spin on a closed port.
			LockSupport.parkNanos(REFUSED_BACKOFF.toNanos());
		}
		if (operation == Operation.CREATE_REQUEST && answer.created() != null) {
			this.open.get(subject).add(answer.created());
		}
		return answer;
	}

	private static @Nullable String read(HttpResponse<String> response, String path) {
		try {
			Object value = JsonPath.read(response.body(), path);
			return (value != null) ? value.toString() : null;
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

}
