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

package io.github.advisorylock.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A TCP relay on loopback in front of a PostgreSQL server (or PgBouncer) that a test can
 * freeze: from then on it forwards nothing in either direction and closes nothing, as a
 * server that stopped answering (a host frozen, a link cut without a reset) looks to its
 * clients, until it is thawed, when what arrived meanwhile is sent. A connection whose
 * server cannot be reached (stopped, restarting) is closed at once, as a refused one
 * would be, so that the driver tries its next host. Closing the relay closes every
 * connection through it.
 * <p>
 * It can also hold back the protocol's cancel requests (a connection that opens with a
 * {@code CancelRequest} rather than a startup message) while the rest flows, to show what
 * a cancel that arrives late reaches.
 */
public final class FreezableRelay implements AutoCloseable {

	private static final int CANCEL_REQUEST_LENGTH = 16;

	private static final int CANCEL_REQUEST_CODE = 80877102;

	/** PostgreSQL's own bound on a startup packet. */
	private static final int MAX_OPENING_LENGTH = 10_000;

	private static final Pattern HOST_AND_PORT = Pattern.compile("(jdbc:postgresql://)([^/:]+)(?::(\\d+))?(/.*)");

	private final ServerSocket server;

	/** The URL through the relay, or {@code null} for a relay made for a port. */
	private final String url;

	private final String targetHost;

	private final int targetPort;

	private final List<Socket> sockets = new ArrayList<>();

	private final Object gate = new Object();

	private boolean frozen;

	/** Whether cancel requests are held back; guarded by the gate. */
	private boolean holdingCancels;

	/** Cancel requests that arrived while held back; guarded by the gate. */
	private int cancelsHeld;

	/** Cancel requests the server answered by closing their connection. */
	private final AtomicInteger cancelsAnswered = new AtomicInteger();

	/** Connections opened through the relay, cancel requests aside. */
	private final AtomicInteger connectionsOpened = new AtomicInteger();

	private volatile boolean closed;

	/**
	 * Start relaying connections on a free port of the loopback address to the server of
	 * a JDBC URL.
	 * @param jdbcUrl a {@code jdbc:postgresql://host:port/database} URL
	 * @throws IOException if no port can be opened
	 */
	public FreezableRelay(String jdbcUrl) throws IOException {
		Matcher matcher = HOST_AND_PORT.matcher(jdbcUrl);
		if (!matcher.matches()) {
			throw new IllegalArgumentException("Not a jdbc:postgresql://host:port/database URL: " + jdbcUrl);
		}
		this.targetHost = matcher.group(2);
		this.targetPort = (matcher.group(3) != null) ? Integer.parseInt(matcher.group(3)) : 5432;
		this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		this.url = matcher.group(1) + this.server.getInetAddress().getHostAddress() + ":" + this.server.getLocalPort()
				+ matcher.group(4);
		daemon(this::accept, "relay-accept-" + this.server.getLocalPort());
	}

	/**
	 * Start relaying connections on a free port of the loopback address to a port of the
	 * loopback address: for a URL of several hosts, one relay each.
	 * @param targetPort the port to relay to
	 * @throws IOException if no port can be opened
	 */
	public FreezableRelay(int targetPort) throws IOException {
		this.targetHost = InetAddress.getLoopbackAddress().getHostAddress();
		this.targetPort = targetPort;
		this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		this.url = null;
		daemon(this::accept, "relay-accept-" + this.server.getLocalPort());
	}

	/**
	 * Return the JDBC URL through the relay: the given one with the relay's address.
	 * @return the URL
	 */
	public String url() {
		if (this.url == null) {
			throw new IllegalStateException("A relay made for a port has no URL: use port()");
		}
		return this.url;
	}

	/**
	 * Return the port the relay listens on, on the loopback address.
	 * @return the port
	 */
	public int port() {
		return this.server.getLocalPort();
	}

	/**
	 * Stop forwarding, in both directions, on every connection, now and later; what
	 * arrives is kept, not sent.
	 */
	public void freeze() {
		synchronized (this.gate) {
			this.frozen = true;
		}
	}

	/**
	 * Forward again, on every connection, what was held back first: a link that carries
	 * packets again.
	 */
	public void thaw() {
		synchronized (this.gate) {
			this.frozen = false;
			this.gate.notifyAll();
		}
	}

	/**
	 * Hold back every cancel request that arrives from now on, until
	 * {@link #releaseCancelRequests()}: a client sees its request sent, the server sees
	 * nothing of it yet.
	 */
	public void holdCancelRequests() {
		synchronized (this.gate) {
			this.holdingCancels = true;
		}
	}

	/**
	 * Send the cancel requests held back, and those that arrive later, on to the server.
	 */
	public void releaseCancelRequests() {
		synchronized (this.gate) {
			this.holdingCancels = false;
			this.gate.notifyAll();
		}
	}

	/**
	 * Return how many cancel requests arrived while they were held back.
	 * @return the number
	 */
	public int cancelRequestsHeld() {
		synchronized (this.gate) {
			return this.cancelsHeld;
		}
	}

	/**
	 * Return how many cancel requests the server has answered, by closing their
	 * connection as the protocol says: by then PostgreSQL has signalled the backend.
	 * @return the number
	 */
	public int cancelRequestsAnswered() {
		return this.cancelsAnswered.get();
	}

	/**
	 * Return how many connections clients opened through the relay, the cancel requests'
	 * aside: a pool that closed a connection and opened another shows one more.
	 * @return the number
	 */
	public int connectionsOpened() {
		return this.connectionsOpened.get();
	}

	private void accept() {
		while (!this.closed) {
			Socket client;
			try {
				client = this.server.accept();
			}
			catch (IOException ex) {
				// Closed.
				continue;
			}
			daemon(() -> connect(client), "relay-connect-" + client.getPort());
		}
	}

	/**
	 * Connect a client to the server, after reading what the client sends first: a cancel
	 * request's connection may have to wait.
	 */
	private void connect(Socket client) {
		synchronized (this.sockets) {
			this.sockets.removeIf(Socket::isClosed);
			this.sockets.add(client);
		}
		try {
			byte[] opening = readOpening(client.getInputStream());
			boolean cancel = isCancelRequest(opening);
			if (cancel) {
				awaitCancelsReleased();
			}
			else {
				this.connectionsOpened.incrementAndGet();
			}
			Socket upstream = new Socket(this.targetHost, this.targetPort);
			synchronized (this.sockets) {
				this.sockets.add(upstream);
			}
			awaitThaw();
			upstream.getOutputStream().write(opening);
			upstream.getOutputStream().flush();
			daemon(() -> pump(client, upstream), "relay-up-" + client.getPort());
			daemon(() -> {
				pump(upstream, client);
				if (cancel) {
					this.cancelsAnswered.incrementAndGet();
				}
			}, "relay-down-" + client.getPort());
		}
		catch (IOException | InterruptedException ex) {
			// The server refused, or the relay closed: the client sees its connection
			// closed at once.
			closeQuietly(client);
		}
	}

	/**
	 * Read the client's first message whole: it starts with its length, and PgBouncer
	 * refuses one that arrives in pieces. An SSL request is 8 bytes, and waits for the
	 * server's answer before anything else is sent.
	 */
	private static byte[] readOpening(InputStream in) throws IOException {
		byte[] head = in.readNBytes(4);
		int length = (head.length == 4) ? ByteBuffer.wrap(head).getInt() : 0;
		if (length < 8 || length > MAX_OPENING_LENGTH) {
			throw new IOException("Not a PostgreSQL client's first message");
		}
		return ByteBuffer.allocate(length).put(head).put(in.readNBytes(length - 4)).array();
	}

	/**
	 * A cancel request is 16 bytes: its length, the code 80877102, the backend's process
	 * id and its secret key.
	 */
	private static boolean isCancelRequest(byte[] opening) {
		return opening.length == CANCEL_REQUEST_LENGTH && ByteBuffer.wrap(opening).getInt(4) == CANCEL_REQUEST_CODE;
	}

	private void awaitCancelsReleased() throws InterruptedException, IOException {
		synchronized (this.gate) {
			if (this.holdingCancels) {
				this.cancelsHeld++;
			}
			while (this.holdingCancels && !this.closed) {
				this.gate.wait();
			}
		}
		if (this.closed) {
			throw new IOException("relay closed");
		}
	}

	private void pump(Socket from, Socket to) {
		byte[] buffer = new byte[64 * 1024];
		try {
			InputStream in = from.getInputStream();
			OutputStream out = to.getOutputStream();
			for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
				awaitThaw();
				out.write(buffer, 0, read);
				out.flush();
			}
			awaitThaw();
			to.shutdownOutput();
			if (from.isOutputShutdown()) {
				// Both directions ended.
				closeQuietly(from);
				closeQuietly(to);
			}
		}
		catch (IOException | InterruptedException ex) {
			// The relay closed, or a peer reset: end both sides.
			closeQuietly(from);
			closeQuietly(to);
		}
	}

	private static void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// Closing anyway.
		}
	}

	/** Wait while the relay is frozen, until it is thawed or closed. */
	private void awaitThaw() throws InterruptedException, IOException {
		synchronized (this.gate) {
			while (this.frozen && !this.closed) {
				this.gate.wait();
			}
		}
		if (this.closed) {
			throw new IOException("relay closed");
		}
	}

	private static void daemon(Runnable task, String name) {
		Thread thread = new Thread(task, name);
		thread.setDaemon(true);
		thread.start();
	}

	@Override
	public void close() throws IOException {
		this.closed = true;
		synchronized (this.gate) {
			this.gate.notifyAll();
		}
		this.server.close();
		synchronized (this.sockets) {
			for (Socket socket : this.sockets) {
				try {
					socket.close();
				}
				catch (IOException ex) {
					// Closing the others anyway.
				}
			}
		}
	}

}
