package io.psiflink.jobs.psi;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import io.psiflink.api.Role;
import io.psiflink.jobs.control.v1.RoleId;
import java.util.List;
import java.util.Map;

/**
 * Parses and checks the control messages of control.proto ({@code psiflink.control.v1}): a body
 * that is not the expected message, or that holds fields this version does not know, is a {@link
 * PeerProtocolException} naming what was expected. Field values are the caller's to check.
 */
public final class ControlMessages {
  private ControlMessages() {}

  /**
   * Parses {@code body} as one {@code T} and refuses unknown fields at any depth.
   *
   * @param what the message, in words, for the error ("the peer's HELLO")
   */
  public static <T extends Message> T parse(Parser<T> parser, byte[] body, String what)
      throws PeerProtocolException {
    T m;
    try {
      CodedInputStream in = CodedInputStream.newInstance(body);
      m = parser.parseFrom(in);
    } catch (InvalidProtocolBufferException e) {
      throw new PeerProtocolException(
          what + " is malformed (not a psiflink.control.v1 message: " + e.getMessage() + ")");
    }
    noUnknownFields(m, what);
    return m;
  }

  private static void noUnknownFields(Message m, String what) throws PeerProtocolException {
    if (!m.getUnknownFields().asMap().isEmpty()) {
      throw new PeerProtocolException(
          what
              + " has fields "
              + m.getUnknownFields().asMap().keySet()
              + " that "
              + m.getDescriptorForType().getFullName()
              + " does not know: the peer runs "
              + "another version of psi-flink");
    }
    for (Map.Entry<FieldDescriptor, Object> e : m.getAllFields().entrySet()) {
      if (e.getKey().getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
        continue;
      }
      if (e.getKey().isRepeated()) {
        for (Object o : (List<?>) e.getValue()) {
          noUnknownFields((Message) o, what);
        }
      } else {
        noUnknownFields((Message) e.getValue(), what);
      }
    }
  }

  /** The wire form of {@code role}. */
  public static RoleId roleId(Role role) {
    return RoleId.newBuilder()
        .setKind(
            switch (role.kind()) {
              case PARTY -> RoleId.Kind.PARTY;
              case HELPER -> RoleId.Kind.HELPER;
              case PROVIDER -> RoleId.Kind.PROVIDER;
            })
        .setIndex(role.index())
        .setParties(role.parties())
        .build();
  }

  /** The role a peer names, checked: a known kind, an index within the parties. */
  public static Role role(RoleId id, String what) throws PeerProtocolException {
    Role.Kind kind =
        switch (id.getKind()) {
          case PARTY -> Role.Kind.PARTY;
          case HELPER -> Role.Kind.HELPER;
          case PROVIDER -> Role.Kind.PROVIDER;
          default ->
              throw new PeerProtocolException(
                  what + " names no known role kind (" + id.getKindValue() + ")");
        };
    try {
      return new Role(kind, id.getIndex(), id.getParties());
    } catch (IllegalArgumentException e) {
      throw new PeerProtocolException(what + " names no valid role: " + e.getMessage());
    }
  }
}
