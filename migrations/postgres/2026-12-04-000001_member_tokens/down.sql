DROP TABLE member_tokens;
